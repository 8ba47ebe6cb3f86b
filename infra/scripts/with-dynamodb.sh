# Sourced by the scripts that need a DynamoDB Local for one run (test.sh, fuzz.sh, coldstart.sh):
#
#   . infra/scripts/with-dynamodb.sh; use_dynamodb_local PORT NAME
#
# Uses the DynamoDB DYNAMODB_ENDPOINT names when it is set. Otherwise it exports DYNAMODB_ENDPOINT for
# an in-memory DynamoDB Local on PORT, starting one (stopped when the calling script exits) unless one
# already answers there. NAME names its pid and log files under .local/.
use_dynamodb_local() {
  local port=$1 name=$2 root ddb
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  ddb="$root/infra/scripts/dynamodb-local.sh"
  if [ -z "${DYNAMODB_ENDPOINT:-}" ]; then
    export DYNAMODB_ENDPOINT="http://127.0.0.1:$port"
    if ! "$ddb" answers "$port"; then
      # shellcheck disable=SC2064 # expand now: the trap runs after this function's locals are gone
      trap "\"$ddb\" stop \"$root/.local/$name-dynamodb.pid\"" EXIT
      "$ddb" start "$port" memory "$root/.local/$name-dynamodb.pid" "$root/.local/$name-dynamodb.log"
    fi
  fi
  echo "DynamoDB Local at $DYNAMODB_ENDPOINT"
}
