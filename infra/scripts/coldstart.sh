#!/usr/bin/env bash
# `make coldstart`: the cold-start harness (infra/coldstart). It needs a DynamoDB Local: the one
# DYNAMODB_ENDPOINT names, or an in-memory one of its own on a free port (COLDSTART_DYNAMODB_PORT chooses
# it), started for the run and stopped after, so it can run beside `make run` and `make test`.
# COLDSTART_FLAGS passes flags on, e.g. COLDSTART_FLAGS='-cold 5 -warm 50 -memory 0 -inittrace', or
# '-env GOGC=off' to run every bootstrap with a setting added to its environment; '-doc=false' leaves
# docs/PERFORMANCE.md as it is (a run writes its report there by default). To compare
# other build flags than the Makefile's, whose words it would split, run the harness itself:
#   DYNAMODB_ENDPOINT=... go run ./infra/coldstart -flags '-trimpath -tags=lambda.norpc,nethttpomithttp2 -ldflags=-s'
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
. "$root/infra/scripts/with-dynamodb.sh"
use_dynamodb_local coldstart "${COLDSTART_DYNAMODB_PORT:-}"
# shellcheck disable=SC2086 # COLDSTART_FLAGS is a list of flags
go run ./infra/coldstart ${COLDSTART_FLAGS:-}
