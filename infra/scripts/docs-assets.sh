#!/usr/bin/env bash
# What the API's documentation is made and checked with, from npm at the versions
# infra/docs/package-lock.json pins: swagger-ui-dist (the docs page's script and style, served by
# DocsFunction) and @redocly/cli (the linter of openapi.yaml). Installed into .local/docs/, never committed.
#
#   docs-assets.sh install    # npm ci into .local/docs/, unless it already holds this lockfile's packages
#   docs-assets.sh copy DIR   # install, then put openapi.yaml and Swagger UI's files into DIR, laid out as
#                             # DocsFunction reads them beside its bootstrap (build-DocsFunction)
#   docs-assets.sh lint       # install, then lint openapi.yaml with Redocly (make test)
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
src="$root/infra/docs"
dir="$root/.local/docs"

. "$root/infra/scripts/npm-pinned.sh"

# No install scripts (npm_pinned): swagger-ui-dist's dependency @scarf/scarf would use its own to report
# the download.
install() { npm_pinned docs-assets "$src" "$dir" node_modules/swagger-ui-dist; }

copy() {
  local out=${1:?usage: docs-assets.sh copy DIR}
  install
  mkdir -p "$out/swagger-ui"
  cp "$root/openapi.yaml" "$out/openapi.yaml"
  # The two files the page loads (functions/docs uiFiles), and Swagger UI's licence, which ships with it.
  for f in swagger-ui-bundle.js swagger-ui.css LICENSE NOTICE; do
    cp "$dir/node_modules/swagger-ui-dist/$f" "$out/swagger-ui/$f"
  done
}

lint() {
  install
  # No usage report sent (there is no network to send it to on CI, and it is not ours to send).
  REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
    "$dir/node_modules/.bin/redocly" lint --config "$src/redocly.yaml" --format stylish "$root/openapi.yaml"
}

cmd=${1:-}; shift || true
case "$cmd" in
  install) install ;;
  copy) copy "$@" ;;
  lint) lint ;;
  *) echo "usage: $0 install|copy DIR|lint" >&2; exit 2 ;;
esac
