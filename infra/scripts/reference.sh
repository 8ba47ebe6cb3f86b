#!/usr/bin/env bash
# `make reference`: the comment list of make run's server against a stock Django REST Framework service
# (infra/drfref) serving the same demo data from SQLite, measured in the same run by infra/reference; the
# table goes to docs/PERFORMANCE.md too. Not part of make test.
#
# It installs Django, DRF, django-filter and gunicorn from Debian's packages (apt-get, like Java and
# Chromium elsewhere; nothing from PyPI) and runs them with Debian's /usr/bin/python3, whatever python3
# comes first on PATH. Then, each started for the run and stopped after:
# - a DynamoDB Local with its data on disk under .local/reference/ (as make run's), on
#   REFERENCE_DYNAMODB_PORT or a free port, and make run's server (infra/scripts/run.sh) against it on
#   REFERENCE_API_PORT or a free port, loading the demo fixture into the fresh table;
# - the reference: a fresh SQLite database with the fixture's users and comments, served by gunicorn
#   with DRF_WORKERS sync workers (default 1: see docs/PERFORMANCE.md) on REFERENCE_DRF_PORT or a free port.
# REFERENCE_FLAGS passes more flags to infra/reference (go run ./infra/reference -h lists them).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
py=/usr/bin/python3
fixture=infra/demo-data/demo.json
work="$root/.local/reference"

if ! { [ -x "$py" ] && "$py" -c 'import django, rest_framework, django_filters, gunicorn' 2>/dev/null; }; then
  echo "reference: installing Django, DRF, django-filter and gunicorn (Debian packages) with apt-get" >&2
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    python3-django python3-djangorestframework python3-django-filters gunicorn >&2
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

rm -rf "$work"
mkdir -p "$work" .local/bin
. "$root/infra/scripts/with-dynamodb.sh"
use_dynamodb_local reference "${REFERENCE_DYNAMODB_PORT:-}" "$work/dynamodb-data"

api_port=$(free_port "${REFERENCE_API_PORT:-}")
drf_port=$(free_port "${REFERENCE_DRF_PORT:-}")
workers=${DRF_WORKERS:-1}

# The reference's database, made afresh: Django's migrations, then the fixture's users and comments.
export DRFREF_DB="$work/drfref.sqlite3"
(cd infra/drfref && PYTHONDONTWRITEBYTECODE=1 "$py" manage.py migrate -v 0 && "$py" manage.py load_demo "$root/$fixture")

# make run's server in a process group of its own, so that stopping the group stops run.sh and the server.
API_ADDR="127.0.0.1:$api_port" OUTBOX_DIR="$work/outbox" SENDER_EMAIL="" LOG_FORMAT=text \
  setsid infra/scripts/run.sh >"$work/api.log" 2>&1 &
api=$!
(cd infra/drfref && PYTHONDONTWRITEBYTECODE=1 exec "$py" -m gunicorn --workers "$workers" --worker-class sync \
  --bind "127.0.0.1:$drf_port" drfref.wsgi) >"$work/drf.log" 2>&1 &
drf=$!
# Replaces use_dynamodb_local's trap: the servers first, then the DynamoDB Local (its pid file is named
# after this shell's pid); after a failure, the end of each server's log. Each step may fail (a server
# that never started) without skipping the next: errexit holds in a trap too.
# shellcheck disable=SC2064 # expand now
trap "status=\$?; kill -- -$api 2>/dev/null || true; kill $drf 2>/dev/null || true; wait $api $drf 2>/dev/null || true
  '$root/infra/scripts/dynamodb-local.sh' stop '$root/.local/run/reference-dynamodb-$$.pid'
  if [ \$status -ne 0 ]; then for f in '$work/api.log' '$work/drf.log'; do echo \"--- \$f\" >&2; tail -n 15 \"\$f\" >&2; done; fi" EXIT

until grep -q '^Ctrl-C stops the server' "$work/api.log"; do
  if ! kill -0 "$api" 2>/dev/null; then echo "reference: make run's server did not start; its log:" >&2; cat "$work/api.log" >&2; exit 1; fi
  sleep 0.5
done
until grep -q 'Booting worker' "$work/drf.log" && infra/scripts/dynamodb-local.sh answers "$drf_port"; do
  if ! kill -0 "$drf" 2>/dev/null; then echo "reference: gunicorn did not start; its log:" >&2; cat "$work/drf.log" >&2; exit 1; fi
  sleep 0.5
done
versions=$("$py" -c 'import django, rest_framework, django_filters, gunicorn, sqlite3
print("Django %s, DRF %s, django-filter %s, SQLite %s" % (django.get_version(), rest_framework.VERSION,
  django_filters.__version__, sqlite3.sqlite_version))')
gunicorn_version=$("$py" -c 'import gunicorn; print(gunicorn.__version__)')

go build -o .local/bin/reference ./infra/reference
# shellcheck disable=SC2086 # REFERENCE_FLAGS is a list of flags
.local/bin/reference -ours "http://127.0.0.1:$api_port" -drf "http://127.0.0.1:$drf_port" -fixture "$fixture" \
  -ours-desc "make run's server (infra/local) on DynamoDB Local with its data on disk" \
  -drf-desc "stock DRF (infra/drfref): $versions; gunicorn $gunicorn_version, $workers sync worker(s), DEBUG off" \
  -doc docs/PERFORMANCE.md ${REFERENCE_FLAGS:-}
