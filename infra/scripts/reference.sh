#!/usr/bin/env bash
# `make reference`: the comment list of make run's server against a stock Django REST Framework service
# (infra/drfref) serving the same demo data, on SQLite and on PostgreSQL, measured in the same run by
# infra/reference; the table goes to docs/PERFORMANCE.md too. Not part of make test.
#
# It installs Django, DRF, django-filter, gunicorn, PostgreSQL and psycopg2 from Debian's packages
# (apt-get, like Java and Chromium elsewhere; nothing from PyPI) and runs them with Debian's
# /usr/bin/python3, whatever python3 comes first on PATH. Then, each started for the run and stopped after:
# - a DynamoDB Local with its data on disk under .local/reference/ (as make run's), on
#   REFERENCE_DYNAMODB_PORT or a free port, and make run's server (infra/scripts/run.sh) against it on
#   REFERENCE_API_PORT or a free port, loading the demo fixture into the fresh table;
# - the reference twice, each database made afresh with the fixture's users and comments, each served by
#   gunicorn with DRF_WORKERS sync workers (default 1: see docs/PERFORMANCE.md): on SQLite
#   (REFERENCE_DRF_PORT or a free port) and on a PostgreSQL cluster of the run's own that listens on a
#   Unix socket under .local/reference/ only (REFERENCE_DRF_PG_PORT or a free port).
#   REFERENCE_POSTGRES=0 leaves PostgreSQL out.
# REFERENCE_FLAGS passes more flags to infra/reference (go run ./infra/reference -h lists them).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
py=/usr/bin/python3
fixture=infra/demo-data/demo.json
work="$root/.local/reference"
postgres=${REFERENCE_POSTGRES:-1}
workers=${DRF_WORKERS:-1}

pg_bin() { find /usr/lib/postgresql -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1; }
packages=(python3-django python3-djangorestframework python3-django-filters gunicorn)
modules="django, rest_framework, django_filters, gunicorn"
if [ "$postgres" = 1 ]; then packages+=(postgresql python3-psycopg2); modules+=", psycopg2"; fi
if ! { [ -x "$py" ] && "$py" -c "import $modules" 2>/dev/null && { [ "$postgres" != 1 ] || [ -n "$(pg_bin)" ]; }; }; then
  echo "reference: installing ${packages[*]} (Debian packages) with apt-get" >&2
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${packages[@]}" >&2
fi

# free_port PORT: PORT when given, else a port nothing answers on (below Linux's ephemeral range).
free_port() {
  if [ -n "$1" ]; then echo "$1"; return; fi
  local p
  for _ in $(seq 1 20); do
    p=$((20000 + RANDOM % 12000))
    infra/scripts/dynamodb-local.sh answers "$p" || { echo "$p"; return; }
  done
  echo "reference: no free port found" >&2
  return 1
}

# as_postgres runs a PostgreSQL command as the cluster's owner: initdb refuses root, so root runs it as
# Debian's postgres user.
as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# drf_db (sqlite|postgres) COMMAND...: runs COMMAND with the settings that aim the reference at that database.
drf_db() {
  local db=$1
  shift
  if [ "$db" = postgres ]; then
    DRFREF_PG_HOST="$work/pg" PYTHONDONTWRITEBYTECODE=1 "$@"
  else
    DRFREF_DB="$work/drfref.sqlite3" PYTHONDONTWRITEBYTECODE=1 "$@"
  fi
}

# serve_drf DB PORT: the reference's database made afresh (Django's migrations, then the fixture's users
# and comments), then gunicorn serving it in the background, its log in $work/drf-DB.log.
serve_drf() {
  local db=$1 port=$2
  (cd infra/drfref && drf_db "$db" "$py" manage.py migrate -v 0 && drf_db "$db" "$py" manage.py load_demo "$root/$fixture")
  (cd infra/drfref && drf_db "$db" exec "$py" -m gunicorn --workers "$workers" --worker-class sync \
    --bind "127.0.0.1:$port" drfref.wsgi) >"$work/drf-$db.log" 2>&1 &
}

# wait_drf DB PORT PID: returns once that gunicorn answers.
wait_drf() {
  until grep -q 'Booting worker' "$work/drf-$1.log" && infra/scripts/dynamodb-local.sh answers "$2"; do
    if ! kill -0 "$3" 2>/dev/null; then echo "reference: gunicorn ($1) did not start; its log:" >&2; cat "$work/drf-$1.log" >&2; exit 1; fi
    sleep 0.5
  done
}

rm -rf "$work"
mkdir -p "$work" .local/bin
. "$root/infra/scripts/with-dynamodb.sh"
use_dynamodb_local reference "${REFERENCE_DYNAMODB_PORT:-}" "$work/dynamodb-data"
api_port=$(free_port "${REFERENCE_API_PORT:-}")
sqlite_port=$(free_port "${REFERENCE_DRF_PORT:-}")
pg_port=$(free_port "${REFERENCE_DRF_PG_PORT:-}")

# Stops what the run started: the servers, PostgreSQL, then the DynamoDB Local (its pid file is named
# after this shell's pid); after a failure, the end of each server's log. It replaces use_dynamodb_local's
# trap. Each step may fail (a server that never started) without skipping the next: errexit holds in a
# trap too.
pids=()
cleanup() {
  local status=$? pid
  for pid in "${pids[@]}"; do kill -- "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "${pid#-}" 2>/dev/null || true; done
  if [ -f "$work/pg/data/postmaster.pid" ]; then
    as_postgres "$(pg_bin)/pg_ctl" -D "$work/pg/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  "$root/infra/scripts/dynamodb-local.sh" stop "$root/.local/run/reference-dynamodb-$$.pid"
  if [ "$status" -ne 0 ]; then
    for f in "$work"/*.log; do echo "--- $f" >&2; tail -n 15 "$f" >&2; done
  fi
}
trap cleanup EXIT

# make run's server in a process group of its own, so that stopping the group stops run.sh and the server.
API_ADDR="127.0.0.1:$api_port" OUTBOX_DIR="$work/outbox" SENDER_EMAIL="" LOG_FORMAT=text \
  setsid infra/scripts/run.sh >"$work/api.log" 2>&1 &
api=$!
pids+=("-$api")
serve_drf sqlite "$sqlite_port"
sqlite_pid=$!
pids+=("$sqlite_pid")
pg_flags=()
if [ "$postgres" = 1 ]; then
  # A cluster of the run's own, reached through a Unix socket only: no port to share with anything.
  mkdir -p "$work/pg"
  [ "$(id -u)" -eq 0 ] && chown postgres "$work/pg"
  as_postgres "$(pg_bin)/initdb" -D "$work/pg/data" -A trust -U postgres >"$work/pg-initdb.log" 2>&1
  as_postgres "$(pg_bin)/pg_ctl" -D "$work/pg/data" -l "$work/pg/postgres.log" -w \
    -o "-c listen_addresses='' -c unix_socket_directories='$work/pg'" start >/dev/null
  as_postgres "$(pg_bin)/createdb" -h "$work/pg" -U postgres drfref
  serve_drf postgres "$pg_port"
  pg_pid=$!
  pids+=("$pg_pid")
  pg_flags=(-drf-pg "http://127.0.0.1:$pg_port")
fi

until grep -q '^Ctrl-C stops the server' "$work/api.log"; do
  if ! kill -0 "$api" 2>/dev/null; then echo "reference: make run's server did not start; its log:" >&2; cat "$work/api.log" >&2; exit 1; fi
  sleep 0.5
done
wait_drf sqlite "$sqlite_port" "$sqlite_pid"
[ "$postgres" = 1 ] && wait_drf postgres "$pg_port" "$pg_pid"

stack=$("$py" -c 'import django, rest_framework, django_filters, gunicorn
print("Django %s, DRF %s, django-filter %s, gunicorn %s" % (django.get_version(), rest_framework.VERSION,
  django_filters.__version__, gunicorn.__version__))')
sqlite_version=$("$py" -c 'import sqlite3; print(sqlite3.sqlite_version)')
served="sync workers: $workers, DEBUG off"
if [ "$postgres" = 1 ]; then
  pg_version=$(as_postgres "$(pg_bin)/postgres" --version | awk '{print $3}')
  pg_flags+=(-drf-pg-desc "stock DRF (infra/drfref): $stack, $served; PostgreSQL $pg_version on a Unix socket, psycopg2")
fi

go build -o .local/bin/reference ./infra/reference
# shellcheck disable=SC2086 # REFERENCE_FLAGS is a list of flags
.local/bin/reference -ours "http://127.0.0.1:$api_port" -fixture "$fixture" \
  -ours-desc "make run's server (infra/local) on DynamoDB Local with its data on disk" \
  -drf "http://127.0.0.1:$sqlite_port" -drf-desc "stock DRF (infra/drfref): $stack, $served; SQLite $sqlite_version" \
  "${pg_flags[@]}" -doc docs/PERFORMANCE.md ${REFERENCE_FLAGS:-}
