#!/usr/bin/env bash
# CI, after `make build`: every function's bootstrap must be a linux/arm64 binary of at most
# BOOTSTRAP_MAX_BYTES (the size budget, 7.5 MiB by default). Lists every size, then fails naming each one over.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
limit=${BOOTSTRAP_MAX_BYTES:-7864320}
functions=$(sed -n 's/^FUNCTIONS[[:space:]]*:=[[:space:]]*//p' "$root/Makefile")
[ -n "$functions" ] || { echo "bootstrap-sizes: no FUNCTIONS in the Makefile" >&2; exit 1; }
mib() { awk -v n="$1" 'BEGIN { printf "%.2f", n / 1048576 }'; }
status=0
for fn in $functions; do
  bin="$root/.local/build/$fn/bootstrap"
  if [ ! -f "$bin" ]; then
    echo "bootstrap-sizes: $bin is missing: run make build first" >&2
    status=1
    continue
  fi
  # ELF e_machine at offset 18: 0xb7 is AArch64. A host build would pass the limit for the wrong reason.
  machine=$(od -An -tx1 -j18 -N2 "$bin" | tr -d ' \n')
  if [ "$machine" != "b700" ]; then
    echo "bootstrap-sizes: $fn: not a linux/arm64 binary (e_machine $machine)" >&2
    status=1
    continue
  fi
  size=$(stat -c %s "$bin")
  if [ "$size" -gt "$limit" ]; then
    printf 'bootstrap-sizes: %-20s %9d bytes (%s MiB)  OVER the %d-byte limit by %d\n' "$fn" "$size" "$(mib "$size")" "$limit" $((size - limit)) >&2
    status=1
  else
    printf 'bootstrap-sizes: %-20s %9d bytes (%s MiB)  ok\n' "$fn" "$size" "$(mib "$size")"
  fi
done
exit $status
