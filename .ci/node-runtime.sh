#!/usr/bin/env bash
# Installs a pinned Node.js release from the npm registry's `node` package (it ships the real
# binary) into .runtimes/node<major>/ inside this clone, and prints the binary's path.
# Nothing outside the clone changes; a second call reuses the install.
#   bash .ci/node-runtime.sh 22     ->  /path/to/clone/.runtimes/node22/node_modules/.bin/node
set -euo pipefail
cd "$(dirname "$0")/.."
major="${1:?usage: node-runtime.sh <major: 22|24|26>}"
case "$major" in
  22) version=22.23.3 ;;
  24) version=24.21.0 ;;
  26) version=26.10.0 ;;
  *) echo "node-runtime.sh: no pinned release for Node $major" >&2; exit 2 ;;
esac
dir=".runtimes/node$major"
bin="$PWD/$dir/node_modules/.bin/node"
if [ ! -x "$bin" ] || [ "$("$bin" --version 2>/dev/null)" != "v$version" ]; then
  rm -rf "$dir"
  npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "node@$version" >&2
fi
[ "$("$bin" --version)" = "v$version" ] || { echo "node-runtime.sh: $bin is not v$version" >&2; exit 1; }
echo "$bin"
