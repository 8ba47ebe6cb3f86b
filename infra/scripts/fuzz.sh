#!/usr/bin/env bash
# `make fuzz`: every fuzz target of the module (`go test -list '^Fuzz' ./...`), each alone for FUZZTIME
# (default 30s), against a DynamoDB Local (the whole-path target, FuzzAPI, needs one): DYNAMODB_ENDPOINT
# when set, else an in-memory one of its own on a free port (TEST_DYNAMODB_PORT chooses it), started for
# the run and stopped after, as `make test` does. FUZZ_TARGETS (an extended regexp) picks targets by name.
# FUZZMINIMIZETIME (default 5s) bounds the minimizing of each input found: Go's default, 60s, is spent
# on every new interesting input and would leave a short run mostly minimizing, not executing.
#
# Prints a table of target, executions, new interesting inputs and outcome. A target that fails exits
# non-zero after the table, naming the failing input Go wrote under the package's testdata/fuzz/ (move it
# aside or commit it as a regression seed) and the full log under .local/fuzz/.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
fuzztime=${FUZZTIME:-30s}
minimizetime=${FUZZMINIMIZETIME:-5s}
logs="$root/.local/fuzz"
mkdir -p "$logs"

# "package name" per line. -list runs no test, so it needs no database; the test binaries' TestMain
# summaries go to stderr.
targets=$(go test -list '^Fuzz' ./... 2>/dev/null | awk '
  /^Fuzz/ { names[++n] = $1; next }
  /^ok[ \t]/ { for (i = 1; i <= n; i++) print $2, names[i]; n = 0 }
')
if [ -n "${FUZZ_TARGETS:-}" ]; then
  targets=$(printf '%s\n' "$targets" | awk -v re="$FUZZ_TARGETS" '$2 ~ re')
fi
if [ -z "$targets" ]; then
  echo "fuzz: no fuzz targets found${FUZZ_TARGETS:+ matching $FUZZ_TARGETS}" >&2
  exit 1
fi

. "$root/infra/scripts/with-dynamodb.sh"
use_dynamodb_local fuzz "${TEST_DYNAMODB_PORT:-}"
echo "each target fuzzes for $fuzztime"

# boundary_race tells Go 1.26's fuzzing coordinator failing a target as -fuzztime ends, while a worker
# is still busy ("context deadline exceeded" and no failing input: go.dev/issue/75804, fixed in Go 1.27)
# from a finding. Such a target is run once more; a second failure of any kind is a failure.
boundary_race() {
  grep -qx '    context deadline exceeded' "$1" && ! grep -q 'Failing input written to' "$1"
}

summary=()
failures=()
while read -r pkg name; do
  log="$logs/$name.log"
  echo "fuzz: $name ($pkg)"
  status=0
  go test -run='^$' -fuzz="^$name\$" -fuzztime="$fuzztime" -fuzzminimizetime="$minimizetime" "$pkg" >"$log" 2>&1 || status=$?
  rerun=""
  if [ "$status" -ne 0 ] && boundary_race "$log"; then
    echo "fuzz: $name stopped by Go's fuzztime race (go.dev/issue/75804), no failing input; once more"
    mv "$log" "$log.race"
    status=0
    go test -run='^$' -fuzz="^$name\$" -fuzztime="$fuzztime" -fuzzminimizetime="$minimizetime" "$pkg" >"$log" 2>&1 || status=$?
    rerun=" (second run)"
  fi
  # The last progress line holds the totals: "fuzz: elapsed: 30s, execs: 123 (4/sec), new interesting: 5 (total: 70)".
  progress=$(grep -E '^fuzz: elapsed: .*execs: ' "$log" | tail -n 1 || true)
  execs=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$progress")
  fresh=$(sed -nE 's/.*new interesting: ([0-9]+).*/\1/p' <<<"$progress")
  outcome="ok$rerun"
  if [ "$status" -ne 0 ]; then
    outcome=FAIL
    input=$(sed -nE 's/.*Failing input written to (testdata\/fuzz\/[^ ]+).*/\1/p' "$log" | tail -n 1)
    if [ -n "$input" ]; then
      dir=$(go list -f '{{.Dir}}' "$pkg")
      failures+=("$name: failing input ${dir#"$root"/}/$input (log $log)")
    else
      failures+=("$name: failed without a failing input (log $log)")
    fi
    tail -n 25 "$log" | sed 's/^/    /'
  fi
  summary+=("$(printf '%-22s %-44s %12s %8s  %s' "$name" "${pkg#github.com/reportingplatform/api/}" "${execs:--}" "${fresh:--}" "$outcome")")
done <<<"$targets"

echo
printf '%-22s %-44s %12s %8s  %s\n' TARGET PACKAGE EXECUTIONS "NEW" OUTCOME
printf '%s\n' "${summary[@]}"
if [ ${#failures[@]} -gt 0 ]; then
  echo
  printf 'FAIL %s\n' "${failures[@]}" >&2
  exit 1
fi
