#!/usr/bin/env bash
# `make scale`: every list of SPEC §11 at each size of SCALE_SIZES (default 100,10000,100000 items in
# the caller's scope), each size loaded by the fixture loader into a fresh table (infra/bench,
# BenchmarkScale); the table goes to docs/PERFORMANCE.md and the charts to docs/scale-*.svg. It needs a
# DynamoDB Local: the one DYNAMODB_ENDPOINT names, or an in-memory one of its own on a free port
# (SCALE_DYNAMODB_PORT chooses it), started for the run and stopped after. The loads take most of the time: about
# 4 minutes per 100,000 entries, and a size of N loads 2N (N invitations and N comments), so
# SCALE_SIZES=100,10000 makes a quick run.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
. "$root/infra/scripts/with-dynamodb.sh"
use_dynamodb_local scale "${SCALE_DYNAMODB_PORT:-}"
# Without the race detector, which would distort the times; no time limit: the largest size's load alone
# takes minutes.
SCALE_SIZES="${SCALE_SIZES:-}" go test -run='^$' -bench='^BenchmarkScale$' -benchtime=1x -count=1 -timeout=0 ./infra/bench
