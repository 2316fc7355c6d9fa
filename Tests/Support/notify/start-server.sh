#!/usr/bin/env bash
# Starts a headless X server (Xvfb) and a real notification server on the D-Bus bus ADDRESS.
# SERVER: dunst (with Tests/Support/notify/dunstrc), xfce4-notifyd, notification-daemon (GNOME's) or
# mate-notification-daemon — each from its Debian package (scripts/install-deps.sh).
# Prints four lines: the X display (":N"), the Xvfb pid, the server pid, its home. Run it under
# Tests/Support/tether.sh (TetheredProcess), which stops both with the test process.
# Waits until the server owns org.freedesktop.Notifications (at most ~10 s; exit 1 otherwise).
# Each server gets a HOME and XDG dirs of its own under a fresh temporary directory (its settings
# and caches never touch the person's), removed by the caller with the directory printed on line 4.
# Usage: start-server.sh ADDRESS SERVER [LOGFILE]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
address="${1:?usage: start-server.sh ADDRESS SERVER [LOGFILE]}"
server="${2:?usage: start-server.sh ADDRESS SERVER [LOGFILE]}"
log="${3:-/dev/null}"
case "$server" in
  dunst) command=(dunst -config "$here/dunstrc") ;;
  xfce4-notifyd) command=(/usr/lib/x86_64-linux-gnu/xfce4/notifyd/xfce4-notifyd) ;;
  notification-daemon) command=(/usr/lib/notification-daemon/notification-daemon -r) ;;
  mate-notification-daemon) command=(/usr/lib/mate-notification-daemon/mate-notification-daemon -r) ;;
  *) echo "start-server: unknown server '$server'" >&2; exit 2 ;;
esac
[ -x "$(command -v "${command[0]}")" ] || { echo "start-server: ${command[0]} is not installed (scripts/install-deps.sh)" >&2; exit 1; }
home="$(mktemp -d)"
displayfile="$home/display"
# -displayfd: Xvfb picks a free display and writes its number once it accepts connections. -br: a black
# root background the server repaints when a window goes (without it, a closed window's pixels stay).
Xvfb -displayfd 3 -screen 0 1024x768x24 -br -nolisten tcp 3>"$displayfile" </dev/null >>"$log" 2>&1 &
xvfb=$!
for _ in $(seq 200); do [ -s "$displayfile" ] && break; sleep 0.05; done
if ! [ -s "$displayfile" ]; then kill "$xvfb" 2>/dev/null; rm -rf "$home"; echo "start-server: Xvfb did not start" >&2; exit 1; fi
display=":$(tr -d '[:space:]' <"$displayfile")"
mkdir -p "$home/config" "$home/cache" "$home/data" "$home/runtime"
chmod 700 "$home/runtime"
env -u XDG_CONFIG_DIRS DISPLAY="$display" DBUS_SESSION_BUS_ADDRESS="$address" HOME="$home" \
    XDG_CONFIG_HOME="$home/config" XDG_CACHE_HOME="$home/cache" XDG_DATA_HOME="$home/data" \
    XDG_RUNTIME_DIR="$home/runtime" GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1 \
    "${command[@]}" </dev/null >>"$log" 2>&1 &
pid=$!
for _ in $(seq 200); do
  if busctl --address="$address" status org.freedesktop.Notifications >/dev/null 2>&1; then
    printf '%s\n%s\n%s\n%s\n' "$display" "$xvfb" "$pid" "$home"
    exit 0
  fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.05
done
kill "$pid" "$xvfb" 2>/dev/null
rm -rf "$home"
echo "start-server: $server did not take org.freedesktop.Notifications (log: $log)" >&2
exit 1
