#!/usr/bin/env bash
# Runs schedd's whole test suite on a fresh machine: installs what is missing, builds (warnings are
# errors), runs unit, differential and integration tests. Usage: scripts/test.sh [swift test args…]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
export PATH="/opt/swift/usr/bin:$PATH"
echo "== build (warnings are errors)"
swift build --build-tests -Xswiftc -warnings-as-errors 2>&1 | tail -n 20
echo "== tests"
swift test --skip-build "$@"
