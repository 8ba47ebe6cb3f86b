#!/usr/bin/env bash
# `make test` (and `make bench` with the argument bench): vet, staticcheck, actionlint, Redocly's lint of
# openapi.yaml, then every test with the race detector, against an in-memory DynamoDB Local of its own on
# a free port (TEST_DYNAMODB_PORT chooses the port; DYNAMODB_ENDPOINT names one to use instead), started
# for the run and stopped after. PKG (a package pattern) and RUN (a -run regexp) narrow it to those tests
# alone, without the linters: `make test PKG=./functions/comments/ RUN=TestCreate`.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
. "$root/infra/scripts/with-dynamodb.sh"
use_dynamodb_local test "${TEST_DYNAMODB_PORT:-}"
# A package's tests may take many minutes on a busy 2-core machine (race detector, walks of 20,000);
# the limit is there to end a hang, well inside CI's 90 minutes.
timeout=40m
if [ -n "${PKG:-}" ] || [ -n "${RUN:-}" ]; then
  # shellcheck disable=SC2086 # PKG may list several packages, TEST_FLAGS several flags
  go test -race -count=1 -timeout="$timeout" ${RUN:+-run "$RUN"} ${TEST_FLAGS:-} ${PKG:-./...}
  exit 0
fi
if [ "${1:-}" = bench ]; then
  # Benchmarks without the race detector, which would distort them.
  go test -run='^$' -bench=. -benchmem -count=1 ${BENCH_FLAGS:-} $(go list ./... | grep -v '/infra/bench$')
  # The table of every operation against its target (docs/PERFORMANCE.md): BENCH_ROUNDS rounds of one request each.
  go test -run='^$' -bench=Operations -benchmem -benchtime="${BENCH_ROUNDS:-400}x" -count=1 ${BENCH_FLAGS:-} ./infra/bench
  exit 0
fi
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.local/*'))
if [ -n "$unformatted" ]; then echo "gofmt would change: $unformatted" >&2; exit 1; fi
go vet ./...
# staticcheck, pinned, through the Go module proxy: nothing to install by hand.
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
# The GitHub Actions workflow, with actionlint (pinned, through the Go module proxy as staticcheck).
go run github.com/rhysd/actionlint/cmd/actionlint@v1.7.12 .github/workflows/*.yml
# openapi.yaml against Redocly's rules; this also installs the Swagger UI the docs tests serve.
infra/scripts/docs-assets.sh lint
# Chromium, for the docs page's browser test (infra/local), installed like Java where it is missing.
if ! command -v chromium >/dev/null 2>&1; then
  echo "test: installing Chromium with apt-get" >&2
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >&2
fi
go test -race -count=1 -timeout="$timeout" ${TEST_FLAGS:-} ./...
