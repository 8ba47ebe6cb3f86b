# Sourced by the scripts that need a DynamoDB Local for one run (test.sh, fuzz.sh, coldstart.sh,
# scale.sh, load.sh, reference.sh):
#
#   . infra/scripts/with-dynamodb.sh; use_dynamodb_local NAME [PORT] [DATA_DIR]
#
# Uses the DynamoDB DYNAMODB_ENDPOINT names when it is set. Otherwise it starts a DynamoDB Local of the
# run's own, in memory or, given DATA_DIR, on disk there as `make run`'s is, stopped when the calling
# script exits, and exports DYNAMODB_ENDPOINT for it: on PORT when one is given (failing if something
# already listens there), else on a free port. It never uses a DynamoDB Local that it did not start, so
# two checkouts' runs at once cannot take each other's away. Its pid and log files under .local/ are
# named after NAME and this shell's pid.
use_dynamodb_local() {
  local name=$1 port=${2:-} data=${3:-memory} root ddb pidfile logfile status
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  ddb="$root/infra/scripts/dynamodb-local.sh"
  if [ -n "${DYNAMODB_ENDPOINT:-}" ]; then
    echo "DynamoDB Local at $DYNAMODB_ENDPOINT (DYNAMODB_ENDPOINT)"
    return 0
  fi
  pidfile="$root/.local/run/$name-dynamodb-$$.pid"
  logfile="$root/.local/run/$name-dynamodb-$$.log"
  mkdir -p "$root/.local/run"
  # shellcheck disable=SC2064 # expand now: the trap runs after this function's locals are gone
  # The log is kept only when the run failed.
  trap "status=\$?; \"$ddb\" stop \"$pidfile\"; [ \$status -ne 0 ] || rm -f \"$logfile\"" EXIT
  trap 'exit 130' INT TERM
  if [ -n "$port" ]; then
    if "$ddb" answers "$port"; then
      echo "$name: port $port is in use (another DynamoDB Local?). Choose another port, or name that" \
        "DynamoDB with DYNAMODB_ENDPOINT=http://127.0.0.1:$port to use it." >&2
      return 1
    fi
    "$ddb" start "$port" "$data" "$pidfile" "$logfile"
  else
    # A port that nothing answers on now may be taken before DynamoDB Local binds it (another run
    # choosing at the same moment): start then says so (status 3), and another port is tried.
    local candidate
    for _ in 1 2 3 4 5 6 7 8; do
      # Below Linux's ephemeral range (32768 up), where outgoing connections take their ports.
      candidate=$((20000 + RANDOM % 12000))
      "$ddb" answers "$candidate" && continue
      status=0
      "$ddb" start "$candidate" "$data" "$pidfile" "$logfile" || status=$?
      if [ "$status" -eq 0 ]; then port=$candidate; break; fi
      [ "$status" -eq 3 ] || return "$status"
    done
    if [ -z "$port" ]; then
      echo "$name: no free port found for DynamoDB Local" >&2
      return 1
    fi
  fi
  export DYNAMODB_ENDPOINT="http://127.0.0.1:$port"
  echo "DynamoDB Local at $DYNAMODB_ENDPOINT (started for this run; log $logfile)"
}
