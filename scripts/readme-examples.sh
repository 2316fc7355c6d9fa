#!/usr/bin/env bash
# Runs the README's quick-start examples exactly as they stand there: every fenced block after an
# `<!-- example: NAME -->` line; then every example of docs/getting-started.md
# (Tests/Support/docs/guide_examples.py says how each kind is run). shell: saved as an executable script and run with schedd on PATH;
# python: saved as a test file and run with pytest and the package installed from clients/python;
# swift: must be byte for byte Tests/ScheddKitTests/ReadmeQuickStartTests.swift, which then runs.
#   scripts/readme-examples.sh [SCHEDD_BINARY=.build/debug/schedd]   (after swift build --build-tests)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
binary="${SCHEDD_BINARY:-$PWD/.build/debug/schedd}"
[ -x "$binary" ] || { echo "readme-examples: no schedd at $binary (swift build first)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Extract each example into $work/NAME.
awk -v dir="$work" '
  /^<!-- example: [a-z]+ -->$/ { name = $3; want = 1; next }
  want && /^```/ { want = 0; inside = 1; file = dir "/" name; printf "" > file; next }
  inside && /^```$/ { inside = 0; close(file); count++; next }
  inside { print >> file }
  END { if (count != 3) { print "readme-examples: expected 3 examples, found " count > "/dev/stderr"; exit 1 } }
' README.md
for name in shell python swift; do
  [ -s "$work/$name" ] || { echo "readme-examples: README has no '$name' example" >&2; exit 1; }
done

echo "-- shell (dinner-reminder.sh)"
cp "$work/shell" "$work/dinner-reminder.sh"
chmod +x "$work/dinner-reminder.sh"
(cd "$work" && PATH="$(dirname "$binary"):$PATH" ./dinner-reminder.sh)

echo "-- python (test_reminders.py)"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install --quiet --no-deps --no-build-isolation --no-index ./clients/python
mkdir "$work/app" && cp "$work/python" "$work/app/test_reminders.py"
(cd "$work/app" && PATH="$(dirname "$binary"):$PATH" "$work/venv/bin/python" -m pytest -p no:cacheprovider -q)

echo "-- docs/getting-started.md (sessions, scripts, Python, pytest with the [test] extra, Package.swift, Swift)"
guide_venv="$work/guide-venv"
/usr/bin/python3 -m venv --system-site-packages "$guide_venv"
# The guide's line, offline: pytest (the extra) comes from the system's site packages.
"$guide_venv/bin/pip" install --quiet --no-index --no-build-isolation './clients/python[test]'
/usr/bin/python3 Tests/Support/docs/guide_examples.py docs/getting-started.md "$binary" "$guide_venv/bin/python" "$work/guide"

echo "-- swift (Tests/ScheddKitTests/ReadmeQuickStartTests.swift)"
diff -u Tests/ScheddKitTests/ReadmeQuickStartTests.swift "$work/swift" \
  || { echo "readme-examples: the README's Swift example and ReadmeQuickStartTests.swift differ" >&2; exit 1; }
SCHEDD_BINARY="$binary" swift test --skip-build --filter 'DinnerReminderTests|checkoutCancelsTheReminder|waterReminderFiresOnWeekdaysOnly'
