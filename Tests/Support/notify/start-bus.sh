#!/usr/bin/env bash
# Starts a private dbus-daemon with Tests/Support/notify/bus.conf (only its own service directory).
# Prints two lines: the bus address, then the daemon's pid. Stop it with `kill PID`.
# Usage: start-bus.sh [ADDRESS]   e.g.  { read -r ADDR; read -r PID; } < <(start-bus.sh)
#   ADDRESS (e.g. unix:path=/tmp/x/bus) listens there instead of a fresh socket under /tmp, so a bus
#   can be restarted at the same address.
# The forked daemon must not inherit our stdout (a reader waiting for EOF would wait forever), so its
# answer goes through a temporary file.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
extra=()
[ $# -ge 1 ] && extra=(--address="$1")
dbus-daemon --config-file="$here/bus.conf" "${extra[@]}" --fork --nopidfile --print-address=1 --print-pid=1 \
    >"$out" 2>/dev/null </dev/null
cat "$out"
