#!/usr/bin/env bash
# The typed client a team would generate from openapi.yaml, driven through a tour of the API (issue 31):
# openapi-typescript turns the document into types, openapi-fetch calls the API with them, and
# tsc --strict compiles infra/client/tour.mts against them, so a document that cannot express what the
# API takes (page=last, say) fails the compile, and an answer that differs from it fails the run. At the
# versions infra/client/package-lock.json pins, installed into .local/client/, never committed.
#
#   client.sh install    # npm ci into .local/client/, unless it already holds this lockfile's packages
#   client.sh tour URL   # install, generate the types, compile the tour and run it against the API at URL
#                        # (make run's server with the demo data: client.sh tour http://127.0.0.1:3000)
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
src="$root/infra/client"
dir="$root/.local/client"

. "$root/infra/scripts/npm-pinned.sh"

install() { npm_pinned client "$src" "$dir" node_modules/.bin/tsc; }

tour() {
  local url=${1:?usage: client.sh tour URL}
  install
  # A directory of the run's own under .local/client/, so that the compiler and node find the packages in
  # its node_modules by walking up, and two runs at once do not share their files.
  work=$(mktemp -d "$dir/tour.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  cd "$work"
  "$dir/node_modules/.bin/openapi-typescript" "$root/openapi.yaml" --output schema.d.ts --silent
  cp "$src/tour.mts" .
  # --strict and nothing that loosens it; --types node (found from the working directory up) for process,
  # the DOM's lib for fetch's types, which openapi-fetch's are written against. --skipLibCheck leaves the
  # declaration files themselves (TypeScript's libs, the packages', schema.d.ts) unchecked, a third of the
  # time it would take: every use the tour makes of them is still checked in full.
  "$dir/node_modules/.bin/tsc" --strict --noEmitOnError --noUnusedLocals --skipLibCheck --target es2022 \
    --module nodenext --moduleResolution nodenext --lib es2022,dom --types node --outDir out tour.mts
  node out/tour.mjs "$url"
}

cmd=${1:-}; shift || true
case "$cmd" in
  install) install ;;
  tour) tour "$@" ;;
  *) echo "usage: $0 install|tour URL" >&2; exit 2 ;;
esac
