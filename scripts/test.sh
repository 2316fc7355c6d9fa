#!/usr/bin/env bash
# Runs schedd's whole test suite on a fresh machine: installs what is missing, builds (warnings are
# errors), runs the unit, differential and integration tests (XCTest), the Debian package on a real
# systemd (Tests/System/run.sh), a 60-second libFuzzer smoke run of each harness, and the unit tests
# once more under AddressSanitizer.
#   scripts/test.sh                 everything (what .ci/run runs)
#   scripts/test.sh --quick         XCTest only
#   scripts/test.sh --quick ARGS…   XCTest only, with `swift test` arguments (e.g. --filter ScenarioTests)
#   scripts/test.sh --long [--quick …]  the long tests in full (SCHEDD_LONG_TESTS=1; docs/testing.md)
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
if [ "${1:-}" = "--long" ]; then export SCHEDD_LONG_TESTS=1; shift; fi
if [ "${1:-}" = "--quick" ]; then quick=1; shift; fi
bash scripts/install-deps.sh
export PATH="/opt/swift/usr/bin:$PATH"
start=$(date +%s)
echo "== build (warnings are errors)"
swift build --build-tests -Xswiftc -warnings-as-errors 2>&1 | tail -n 20
echo "== layers (Package.swift dependencies = imports; C modules only in their shims; pure layers)"
bash scripts/check-layers.sh
echo "== manual pages (groff -ww, man --warnings: no warning allowed)"
for page in man/*.[15]; do
  out=$( { groff -ww -z -man "$page" && MANPAGER=cat man --warnings -l "$page" >/dev/null; } 2>&1 )
  [ -z "$out" ] || { echo "$page: $out"; exit 1; }
done
echo "== tests${SCHEDD_LONG_TESTS:+ (long tests in full)}"
phase=$(date +%s)
swift test --skip-build "$@"
echo "== tests took $(( $(date +%s) - phase )) s"
[ "$quick" = 1 ] && exit 0
echo "== Python client and pytest plugin (pip install ./clients/python, its suite against the real daemon)"
bash scripts/test-python.sh
echo "== README quick-start examples (shell testbed, Swift ScheddTestKit, Python fixture), as they stand"
bash scripts/readme-examples.sh
echo "== Debian package (build, lintian, dpkg -i, D-Bus activation, purge)"
bash Tests/Support/deb/test-deb.sh
echo "== system suite (the package on a real systemd 252 in systemd-nspawn, Debian 12; docs/testing.md)"
bash Tests/System/run.sh
echo "== fuzz smoke (60 s per harness)"
bash scripts/fuzz.sh all "${FUZZ_SECONDS:-60}"
echo "== unit tests under AddressSanitizer"
bash scripts/sanitize.sh
echo "== all passed in $(( $(date +%s) - start )) s"
