#!/usr/bin/env bash
# `make sam-local`: the API through the SAM CLI's own emulation, `sam local start-api`, against DynamoDB
# Local, for those who have the SAM CLI and Docker (`make run` serves the same API without either).
# DynamoDB Local runs on the host at port 8000 (data under .local/, as make run's), listening on every
# interface, so that the functions' containers reach it as host.docker.internal: Docker Desktop's name
# for the host, which --add-host gives Docker on Linux too. The table is created and the demo fixture
# loaded as for make run; env.local.json aims every function at that table.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
missing=()
command -v sam >/dev/null 2>&1 || missing+=("the AWS SAM CLI (pip install aws-sam-cli, or AWS's installer)")
if ! command -v docker >/dev/null 2>&1; then
  missing+=("Docker (Docker Desktop, or Docker Engine on Linux)")
elif ! docker info >/dev/null 2>&1; then
  missing+=("a running Docker daemon")
fi
if [ ${#missing[@]} -gt 0 ]; then
  printf 'make sam-local needs %s.\n' "${missing[@]}" >&2
  echo "make run serves the same API, with the same DynamoDB Local, without them." >&2
  exit 1
fi
ddb="$root/infra/scripts/dynamodb-local.sh"
pidfile="$root/.local/dynamodb.pid"
if "$ddb" answers 8000; then
  echo "make sam-local: using the DynamoDB Local already answering on port 8000"
else
  trap '"$ddb" stop "$pidfile"' EXIT
  trap 'exit 130' INT TERM
  "$ddb" start 8000 "$root/.local/dynamodb-data" "$pidfile" "$root/.local/dynamodb.log"
fi
# The table env.local.json names, with the demo data (loading is idempotent).
DYNAMODB_ENDPOINT=http://127.0.0.1:8000 TABLE_NAME=reporting-platform \
  go run ./infra/seed -target local infra/demo-data/demo.json
sam build
sam local start-api --env-vars env.local.json --add-host host.docker.internal:host-gateway \
  --port "${SAM_LOCAL_PORT:-3000}"
