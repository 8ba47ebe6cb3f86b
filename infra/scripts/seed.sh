#!/usr/bin/env bash
# `make seed FILE=...`: loads a fixture. With DYNAMODB_ENDPOINT unset and no AWS table named, it loads
# into `make run`'s DynamoDB Local, starting it for the load when it is not running.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
file=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$root"
ddb="$root/infra/scripts/dynamodb-local.sh"
pidfile="$root/.local/dynamodb-seed.pid"

if [ -z "${DYNAMODB_ENDPOINT:-}" ] && [ -z "${TABLE_NAME:-}" ]; then
  export DYNAMODB_ENDPOINT="http://127.0.0.1:8000"
  if ! "$ddb" answers 8000; then
    trap '"$ddb" stop "$pidfile"' EXIT
    "$ddb" start 8000 "$root/.local/dynamodb-data" "$pidfile" "$root/.local/dynamodb.log"
  fi
fi
go run ./infra/seed "$file"
