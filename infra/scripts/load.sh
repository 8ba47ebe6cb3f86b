#!/usr/bin/env bash
# `make load [CLIENTS=32] [DURATION=30s] [SLOW=100ms-700ms] [API_URL=...]`: mixed load on one object's
# comments (infra/load) and the check that no answer hid a write. Not part of make test.
# With API_URL it loads that API (a `make run` already serving, say). Without, it starts make run's
# server of its own, on a free port, against an in-memory DynamoDB Local of its own with the demo data,
# with SLOW as its DYNAMODB_SLOW (the API's DynamoDB calls each wait that long first), and stops both
# after. LOAD_FLAGS passes more flags to infra/load (go run ./infra/load -h lists them).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
clients=${CLIENTS:-32}
duration=${DURATION:-30s}
url=${API_URL:-}
if [ -z "$url" ]; then
  . "$root/infra/scripts/with-dynamodb.sh"
  use_dynamodb_local load
  mkdir -p .local/bin .local/run
  go build -o .local/bin/local-api ./infra/local
  go build -o .local/bin/load ./infra/load
  log="$root/.local/run/load-api-$$.log"
  DYNAMODB_SLOW=${SLOW:-} API_ADDR=127.0.0.1:0 OUTBOX_DIR="$root/.local/run/load-outbox-$$" LOG_FORMAT=text \
    SENDER_EMAIL="" .local/bin/local-api -demo infra/demo-data/demo.json >"$log" 2>&1 &
  api=$!
  # Replaces use_dynamodb_local's trap: the server first, then the DynamoDB Local (its pid file is named
  # after this shell's pid).
  # shellcheck disable=SC2064 # expand now
  trap "kill $api 2>/dev/null; wait $api 2>/dev/null; rm -rf '$root/.local/run/load-outbox-$$';
    '$root/infra/scripts/dynamodb-local.sh' stop '$root/.local/run/load-dynamodb-$$.pid'" EXIT
  until grep -q '^Ctrl-C stops the server' "$log"; do
    if ! kill -0 "$api" 2>/dev/null; then echo "load: the API did not start; its log:" >&2; cat "$log" >&2; exit 1; fi
    sleep 0.5
  done
  url=$(sed -n 's/^Reporting Platform API on \(http:[^ ]*\).*/\1/p' "$log" | head -n 1)
  grep -q '^Slow store:' "$log" && grep '^Slow store:' "$log"
  if ! grep -q '^Demo login' "$log"; then echo "load: make run printed no working demo login:" >&2; cat "$log" >&2; exit 1; fi
  echo "make run's server on $url (log $log)"
  # shellcheck disable=SC2086 # LOAD_FLAGS is a list of flags
  .local/bin/load -url "$url" -clients "$clients" -duration "$duration" ${LOAD_FLAGS:-}
else
  # shellcheck disable=SC2086
  go run ./infra/load -url "$url" -clients "$clients" -duration "$duration" ${LOAD_FLAGS:-}
fi
