#!/usr/bin/env bash
# A virtualenv with the Pulumi Python SDK from PyPI, for Python programs run under the real CLI,
# in a cache folder outside the clone keyed by the pins; reused when complete. Prints the folder as
# the last line of stdout. The SDK's newest release on PyPI here is older than the CLI (the CLI
# accepts any 3.x SDK); setuptools and wheel are there to build sdk/python's wheel offline.
#
# `python-venv.sh --check` creates nothing: it prints the folder if complete and exits 3 otherwise.
set -euo pipefail
pins=(pulumi==3.272.0 setuptools==84.2.1 wheel==0.48.0)
python="${PYTHON:-python3}"
version="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
key="python${version}-$(printf '%s\n' "${pins[@]}" | sha256sum | cut -c1-12)"
base="${DBCLOUD_TOOLCHAIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-dbcloud/toolchain}"
out="$base/venv-$key"
if [ -f "$out/.complete" ]; then
  echo "$out"
  exit 0
fi
if [ "${1:-}" = "--check" ]; then exit 3; fi

mkdir -p "$base"
# A virtualenv records its own path, so it is built where it stays; a lock keeps two builds apart.
exec 9>"$out.lock"
flock 9
if [ ! -f "$out/.complete" ]; then
  rm -rf "$out"
  "$python" -m venv "$out" >&2
  "$out/bin/pip" install --quiet --disable-pip-version-check "${pins[@]}" >&2
  touch "$out/.complete"
fi
echo "$out"
