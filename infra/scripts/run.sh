#!/usr/bin/env bash
# `make run`: the Docker-free stand-in for `sam local start-api`. Starts DynamoDB Local on
# 127.0.0.1:8000 with its data under .local/ (unless DYNAMODB_ENDPOINT names one), then the local API
# server, which creates the table, loads the demo fixture on first start and serves template.yaml's
# routes. Ctrl-C stops both.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
ddb="$root/infra/scripts/dynamodb-local.sh"
pidfile="$root/.local/dynamodb.pid"

if [ -z "${DYNAMODB_ENDPOINT:-}" ]; then
  export DYNAMODB_ENDPOINT="http://127.0.0.1:8000"
  if "$ddb" answers 8000; then
    echo "make run: using the DynamoDB Local already answering on 127.0.0.1:8000"
  else
    trap '"$ddb" stop "$pidfile"' EXIT
    trap 'exit 130' INT TERM
    "$ddb" start 8000 "$root/.local/dynamodb-data" "$pidfile" "$root/.local/dynamodb.log"
    echo "make run: DynamoDB Local started on 127.0.0.1:8000 (data in .local/dynamodb-data)"
  fi
fi
# Swagger UI for the docs page at /api/docs/ (npm, pinned; once).
infra/scripts/docs-assets.sh install
mkdir -p .local/bin
go build -o .local/bin/local-api ./infra/local
# Invitation e-mails go to .local/outbox/ as .eml files (SPEC §10) unless a sender or outbox is set.
if [ -z "${SENDER_EMAIL:-}" ]; then export OUTBOX_DIR=${OUTBOX_DIR:-$root/.local/outbox}; fi
LOG_FORMAT=${LOG_FORMAT:-text} .local/bin/local-api -demo infra/demo-data/demo.json
