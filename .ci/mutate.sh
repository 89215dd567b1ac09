#!/usr/bin/env bash
# `npm run mutate`: StrykerJS over src/api and src/provider (stryker.config.json).
# Stryker 10 needs Node 22 or later and this project runs on Node 20, so Stryker runs on the
# pinned Node 22 that .ci/node-runtime.sh installs from the npm registry into .runtimes/.
# Stryker's packages are ordinary devDependencies (their `engines` field only warns on Node 20).
# Extra arguments go to `stryker run`, e.g. `npm run mutate -- --mutate src/api/retry.ts`.
set -euo pipefail
cd "$(dirname "$0")/.."
node22="$(bash .ci/node-runtime.sh 22)"
# The mocha runner forks its workers with this same binary (process.execPath).
exec "$node22" node_modules/@stryker-mutator/core/bin/stryker.js run "$@"
