#!/usr/bin/env bash
# Starts a headless X server (Xvfb) and a real notification server on the D-Bus bus ADDRESS.
# SERVER: dunst (with Tests/Support/notify/dunstrc), xfce4-notifyd, notification-daemon (GNOME's),
# mate-notification-daemon or gnome-shell (GNOME Shell 43 as the X11 compositor: see start_gnome_shell
# below) — each from its Debian package (scripts/install-deps.sh).
# Prints four lines: the X display (":N"), the Xvfb pid, the server pid, its home. Run it under
# Tests/Support/tether.sh (TetheredProcess), which stops both with the test process.
# Waits until the server owns org.freedesktop.Notifications (at most ~10 s; gnome-shell first gets up to 60 s to
# settle; exit 1 otherwise).
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
  gnome-shell) command=(gnome-shell) ;;
  *) echo "start-server: unknown server '$server'" >&2; exit 2 ;;
esac
[ -x "$(command -v "${command[0]}")" ] || { echo "start-server: ${command[0]} is not installed (scripts/install-deps.sh)" >&2; exit 1; }
if [ "$server" = gnome-shell ]; then
  for tool in gjs xdotool unshare; do
    command -v "$tool" >/dev/null || { echo "start-server: $tool is not installed (scripts/install-deps.sh)" >&2; exit 1; }
  done
fi
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
environment=(env -u XDG_CONFIG_DIRS DISPLAY="$display" DBUS_SESSION_BUS_ADDRESS="$address" HOME="$home"
    XDG_CONFIG_HOME="$home/config" XDG_CACHE_HOME="$home/cache" XDG_DATA_HOME="$home/data"
    XDG_RUNTIME_DIR="$home/runtime" GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1)

# GNOME Shell 43 (../../../docs/desktop.md, "GNOME Shell"): the X11 compositor on the Xvfb display, in session
# mode schedd-test (gnome-shell/share: the user mode plus the read-only probe extension schedd-probe@schedd.test,
# org.schedd.test.ShellProbe on the bus). What it needs besides the session bus:
# - a system bus: a stand-in of its own (gnome-shell/system-bus.conf), so it never talks to the machine's;
# - no logind: with /run/systemd/seats present it assumes logind and dies, so /run/systemd is hidden under a
#   tmpfs in a mount namespace of its own (unshare -m; the machine's /run is untouched);
# - org.freedesktop.Notifications is owned by the gjs service org.gnome.Shell.Notifications, which forwards to
#   the shell; the private bus activates nothing, so it is started here once the shell is up.
# Ready when the probe says the shell started, left its overview and dropped its own start-up notices (as root
# it shows "Logged in as a privileged user" first, which would hold every banner behind it), and the gjs
# service owns the name.
start_gnome_shell() {
  local system_address
  exec 4< <(exec dbus-daemon --config-file="$here/gnome-shell/system-bus.conf" --nofork --nopidfile --print-address=1 2>>"$log")
  others+=("$!")
  read -r -t 10 -u 4 system_address || { echo "start-server: the stand-in system bus did not start" >&2; return 1; }
  "${environment[@]}" DBUS_SYSTEM_BUS_ADDRESS="$system_address" \
      XDG_DATA_DIRS="$here/gnome-shell/share:/usr/local/share:/usr/share" \
      unshare -m sh -c 'if [ -d /run/systemd ]; then mount -t tmpfs none /run/systemd || exit 1; fi
                        exec gnome-shell --x11 --replace --sm-disable --mode=schedd-test' </dev/null >>"$log" 2>&1 &
  pid=$!
  local settled=""
  for _ in $(seq 1200); do
    kill -0 "$pid" 2>/dev/null || break
    settled="$(busctl --address="$address" call org.schedd.test.ShellProbe /org/schedd/test/ShellProbe \
                 org.schedd.test.ShellProbe Settle 2>/dev/null || true)"
    [ "$settled" = "b true" ] && break
    sleep 0.05
  done
  [ "$settled" = "b true" ] || { echo "start-server: gnome-shell did not settle (log: $log)" >&2; return 1; }
  "${environment[@]}" gjs /usr/share/gnome-shell/org.gnome.Shell.Notifications </dev/null >>"$log" 2>&1 &
  others+=("$!")
}

pid=""
others=()  # what else was started for the server (gnome-shell's system bus and gjs service), stopped with it
if [ "$server" = gnome-shell ]; then
  if ! start_gnome_shell; then
    kill $pid "$xvfb" "${others[@]}" 2>/dev/null || true
    rm -rf "$home"
    exit 1
  fi
else
  "${environment[@]}" "${command[@]}" </dev/null >>"$log" 2>&1 &
  pid=$!
fi
for _ in $(seq 200); do
  if busctl --address="$address" status org.freedesktop.Notifications >/dev/null 2>&1; then
    printf '%s\n%s\n%s\n%s\n' "$display" "$xvfb" "$pid" "$home"
    exit 0
  fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.05
done
kill $pid "$xvfb" "${others[@]}" 2>/dev/null || true
rm -rf "$home"
echo "start-server: $server did not take org.freedesktop.Notifications (log: $log)" >&2
exit 1
