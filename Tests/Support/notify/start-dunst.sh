#!/usr/bin/env bash
# Starts a headless X server (Xvfb) and dunst on the D-Bus bus ADDRESS, with Tests/Support/notify/dunstrc.
# Prints three lines: the X display (":N"), the Xvfb pid, the dunst pid. Stop both with `kill`.
# Waits until dunst owns org.freedesktop.Notifications (at most ~10 s; exit 1 otherwise).
# Usage: start-dunst.sh ADDRESS [LOGFILE]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
address="${1:?usage: start-dunst.sh ADDRESS [LOGFILE]}"
log="${2:-/dev/null}"
displayfile="$(mktemp)"
trap 'rm -f "$displayfile"' EXIT
# -displayfd: Xvfb picks a free display and writes its number once it accepts connections.
Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp 3>"$displayfile" </dev/null >>"$log" 2>&1 &
xvfb=$!
for _ in $(seq 200); do [ -s "$displayfile" ] && break; sleep 0.05; done
if ! [ -s "$displayfile" ]; then kill "$xvfb" 2>/dev/null; echo "start-dunst: Xvfb did not start" >&2; exit 1; fi
display=":$(tr -d '[:space:]' <"$displayfile")"
DISPLAY="$display" DBUS_SESSION_BUS_ADDRESS="$address" dunst -config "$here/dunstrc" </dev/null >>"$log" 2>&1 &
dunst=$!
for _ in $(seq 200); do
  if busctl --address="$address" status org.freedesktop.Notifications >/dev/null 2>&1; then
    printf '%s\n%s\n%s\n' "$display" "$xvfb" "$dunst"
    exit 0
  fi
  kill -0 "$dunst" 2>/dev/null || break
  sleep 0.05
done
kill "$dunst" "$xvfb" 2>/dev/null
echo "start-dunst: dunst did not take org.freedesktop.Notifications (log: $log)" >&2
exit 1
