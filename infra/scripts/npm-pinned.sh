# Sourced by the scripts that use npm packages at the versions a committed lockfile pins (docs-assets.sh,
# client.sh):
#
#   . infra/scripts/npm-pinned.sh; npm_pinned NAME SRC DIR MARK
#
# Installs SRC's package.json and package-lock.json with npm ci into DIR (under .local/, never committed),
# unless DIR already holds that lockfile's packages, MARK (a path under DIR) among them. No install
# scripts: none of the pinned packages needs one. NAME labels the message.
npm_pinned() {
  local name=$1 src=$2 dir=$3 mark=$4
  if cmp -s "$src/package-lock.json" "$dir/installed-lock.json" && [ -e "$dir/$mark" ]; then
    return 0
  fi
  echo "$name: installing the packages $src/package-lock.json pins with npm into $dir" >&2
  rm -rf "$dir"
  mkdir -p "$dir"
  cp "$src/package.json" "$src/package-lock.json" "$dir/"
  (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) >&2
  # Written last: an install that failed half-way is done again next time.
  cp "$src/package-lock.json" "$dir/installed-lock.json"
}
