# Sourced by shell scripts (bash): a private dbus-daemon as a child of the calling shell.
#   source Tests/Support/bus/private-bus.bash
#   start_private_bus --config-file=FILE [--address=ADDRESS]   (or --session)
#   trap 'stop_private_bus' EXIT
# Sets BUS_ADDRESS and BUS_PID. The bus runs in the foreground (--nofork: no daemon left behind by a
# fork); its address and pid come back on a pipe. stop_private_bus sends SIGTERM and waits for it.
# Its log goes to $BUS_LOG when set, else /dev/null.
start_private_bus() {
  local fd
  exec {fd}< <(exec dbus-daemon "$@" --nofork --nopidfile --print-address=1 --print-pid=1 \
                 </dev/null 2>>"${BUS_LOG:-/dev/null}")
  BUS_ADDRESS="" BUS_PID=""
  read -r -t 30 -u "$fd" BUS_ADDRESS || true
  read -r -t 30 -u "$fd" BUS_PID || true
  exec {fd}<&-
  [ -n "$BUS_ADDRESS" ] && [ -n "$BUS_PID" ] || { echo "start_private_bus: dbus-daemon $* did not start" >&2; return 1; }
}

stop_private_bus() {
  [ -n "${BUS_PID:-}" ] || return 0
  kill "$BUS_PID" 2>/dev/null || true
  # A process substitution is not a job `wait` knows: poll until it is gone (at most ~5 s).
  for _ in $(seq 100); do kill -0 "$BUS_PID" 2>/dev/null || break; sleep 0.05; done
  BUS_PID=""
}
