#!/usr/bin/env bash
# `make seed FILE=... [TARGET=aws]`: loads a fixture (SPEC §7). Arguments: the fixture, then the target.
#   local (the default): the table `make run` serves, from the same environment. With DYNAMODB_ENDPOINT
#     unset that is make run's DynamoDB Local on 127.0.0.1:8000, started for the load when it is not
#     running, whatever TABLE_NAME says (TABLE_NAME only names the table in it).
#   aws: the deployed table TABLE_NAME, with the usual AWS credentials and region. The loader checks
#     TABLE_NAME, DYNAMODB_ENDPOINT and the region itself, so that `go run ./infra/seed -target aws`
#     is as safe, and prints the region and table before it writes.
# The Makefile passes aws only for a TARGET given on the make command line: an exported TARGET never
# sends a load to AWS (SPEC §7).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
file=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
target=${2:-local}
cd "$root"
ddb="$root/infra/scripts/dynamodb-local.sh"
pidfile="$root/.local/dynamodb-seed.pid"

case "$target" in
  local)
    if [ -n "${TARGET:-}" ] && [ "$TARGET" != local ]; then
      echo "make seed: TARGET=$TARGET in the environment is ignored; writing to AWS takes TARGET=aws on the make command line" >&2
    fi
    if [ -z "${DYNAMODB_ENDPOINT:-}" ]; then
      export DYNAMODB_ENDPOINT="http://127.0.0.1:8000"
      if ! "$ddb" answers 8000; then
        trap '"$ddb" stop "$pidfile"' EXIT
        "$ddb" start 8000 "$root/.local/dynamodb-data" "$pidfile" "$root/.local/dynamodb.log"
      fi
    fi
    ;;
  aws) ;;
  *)
    echo "make seed: TARGET=$target: want local (the default) or aws" >&2
    exit 2
    ;;
esac
go run ./infra/seed -target "$target" "$file"
