#!/usr/bin/env bash
# Regenerates sdk/ (the schema, the Python and Go SDKs) from the plugin's own schema:
#   tools/pulumi/sdk.sh           writes sdk/
#   tools/pulumi/sdk.sh --check   writes a temporary copy and fails on any difference from sdk/
# The schema is what the plugin's GetSchema answers (packageSchema() in src/plugin/schema.ts, from
# the build). The SDKs come from Pulumi's own generators at the tools module's pinned version
# (sdkgen/main.go); `go mod tidy` then writes the Go SDK's go.sum, as a release would.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
tools="$root/tools/pulumi"
check=false
[[ "${1:-}" == "--check" ]] && check=true

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
out="$root/sdk"
$check && out="$work/sdk"
mkdir -p "$out"

(cd "$root" && npm run build --silent)
node -e '
  const { packageSchema } = require(process.argv[1]);
  process.stdout.write(JSON.stringify(packageSchema(), null, 2) + "\n");
' "$root/dist/plugin/schema.js" >"$out/schema.json"

# Go's build cache makes this a link step after the first build.
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly
(cd "$tools" && go build -trimpath -o "$work/sdkgen" ./sdkgen)
"$work/sdkgen" "$out/schema.json" "$out"
(cd "$out/go" && GOFLAGS=-mod=mod go mod tidy)

if $check; then
  # The last line is the plain count CI reads (.ci/matrix.js): one check.
  # What a local `pip install ./sdk/python` leaves there (sdk/python/.gitignore) is not the SDK.
  if ! diff -ru --exclude=__pycache__ --exclude='*.egg-info' --exclude=build --exclude=dist \
    "$root/sdk" "$out"; then
    echo "sdk/ is stale: run \`npm run sdk\` and commit the result" >&2
    echo "0 passed, 1 failed"
    exit 1
  fi
  echo "sdk/ matches the plugin's schema"
  echo "1 passed, 0 failed"
else
  echo "wrote $out"
fi
