#!/usr/bin/env bash
# Builds the real Pulumi CLI and the YAML language host from their Go modules, with the release
# build flags, into a cache folder outside the clone keyed by what is built; reuses the folder when
# it is complete. Prints the folder (its bin/ holds `pulumi` and `pulumi-language-yaml`) as the
# last line of stdout; everything else goes to stderr.
#
# The CLI's version is the one go.mod requires (its go.sum pins everything under it). The YAML host
# is installed apart from this module so that it keeps its own pkg/sdk versions.
#
# `build.sh --check` builds nothing and needs no Go: it prints the folder if it is complete and
# exits 3 otherwise (the fast test suite uses it to decide whether the real-engine tests can run).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
yaml_version=v1.25.0

cd "$here"
pulumi_version="$(sed -n 's#^[[:space:]]*\(require \)\?github.com/pulumi/pulumi/pkg/v3 \(v[^ ]*\).*#\2#p' go.mod)"
[ -n "$pulumi_version" ] || { echo "go.mod requires no github.com/pulumi/pulumi/pkg/v3" >&2; exit 1; }
# Anything that changes what is built changes the key: the pins and this script.
inputs_hash="$(cat go.mod go.sum build.sh | sha256sum | cut -c1-12)"
key="pulumi-${pulumi_version}-yaml-${yaml_version}-${inputs_hash}"
base="${DBCLOUD_TOOLCHAIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-dbcloud/toolchain}"
out="$base/$key"
if [ -f "$out/.complete" ]; then
  echo "$out"
  exit 0
fi
if [ "${1:-}" = "--check" ]; then exit 3; fi

mkdir -p "$base"
work="$(mktemp -d "$base/.building.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false
flags=(-trimpath -tags osusergo,grpcnotrace)
started=$SECONDS

echo "building pulumi $pulumi_version into $out (minutes on a cold module cache)" >&2
go build "${flags[@]}" -o "$work/bin/pulumi" \
  -ldflags "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$pulumi_version" \
  github.com/pulumi/pulumi/pkg/v3/cmd/pulumi >&2

echo "building pulumi-language-yaml $yaml_version" >&2
(cd "$work" && GOBIN="$work/bin" go install "${flags[@]}" \
  -ldflags "-X github.com/pulumi/pulumi-yaml/pkg/version.Version=$yaml_version" \
  "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml@$yaml_version") >&2

"$work/bin/pulumi" version >&2
touch "$work/.complete"
# A rename is atomic: a concurrent build of the same key that finished first is kept as it is.
mv -T "$work" "$out" 2>/dev/null || rm -rf "$work"
trap - EXIT
echo "toolchain built in $((SECONDS - started)) s" >&2
echo "$out"
