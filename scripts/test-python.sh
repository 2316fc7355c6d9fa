#!/usr/bin/env bash
# The Python package's own suite against the real daemon: installs clients/python with pip into a
# fresh virtual environment (Debian's jeepney and pytest through --system-site-packages, so nothing
# is downloaded) and runs its tests with the schedd built here.
#   scripts/test-python.sh [SCHEDD_BINARY=.build/debug/schedd]
set -euo pipefail
cd "$(dirname "$0")/.."
binary="${SCHEDD_BINARY:-$PWD/.build/debug/schedd}"
[ -x "$binary" ] || { echo "test-python: no schedd at $binary (swift build first)" >&2; exit 1; }
venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
# /usr/bin/python3: Debian's, whose site-packages hold python3-jeepney and python3-pytest.
/usr/bin/python3 -m venv --system-site-packages "$venv"
"$venv/bin/pip" install --quiet --no-deps --no-build-isolation --no-index ./clients/python
cd "$venv"  # run the installed package, not the source tree
SCHEDD_BINARY="$binary" PATH="$(dirname "$binary"):$PATH" \
  "$venv/bin/python" -m pytest -p no:cacheprovider -q "$OLDPWD/clients/python/tests" "$@"
