#!/usr/bin/env bash
# Quick start: installs what is missing, builds schedd (release) and runs the daemon in the foreground.
# With no session bus (a server, a container, CI) it starts a private one; with no notification
# server on that bus it uses the stdout notifier. A demo notification is pushed to fire 5 s after start.
#   scripts/run.sh               # daemon + demo notification; Ctrl-C stops
#   scripts/run.sh --no-demo     # just the daemon
#   scripts/run.sh -- ARGS…      # extra arguments for `schedd run`
set -euo pipefail
cd "$(dirname "$0")/.."
demo=1; extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --no-demo) demo=0 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "usage: scripts/run.sh [--no-demo] [-- schedd-run-args…]" >&2; exit 2 ;;
  esac
  shift
done
bash scripts/install-deps.sh
swift build -c release --static-swift-stdlib --product schedd 2>&1 | tail -n 3
bin="$(swift build -c release --static-swift-stdlib --show-bin-path)/schedd"

if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
  source Tests/Support/bus/private-bus.bash
  start_private_bus --session
  export DBUS_SESSION_BUS_ADDRESS="$BUS_ADDRESS"
  bus_pid="$BUS_PID"
  trap 'kill "$bus_pid" 2>/dev/null || true' EXIT
  echo "run: started a private session bus at $DBUS_SESSION_BUS_ADDRESS" >&2
fi
notifier=stdout
if busctl --user status org.freedesktop.Notifications >/dev/null 2>&1; then notifier=desktop; fi

db="${XDG_STATE_HOME:-$HOME/.local/state}/schedd/schedd.db"
echo "run: schedd run --notifier $notifier --db $db ${extra[*]:-}" >&2
"$bin" run --notifier "$notifier" --db "$db" "${extra[@]}" &
daemon=$!
trap 'kill "$daemon" 2>/dev/null || true; kill "${bus_pid:-0}" 2>/dev/null || true' EXIT INT TERM
if [ "$demo" = 1 ]; then
  for _ in $(seq 50); do "$bin" list >/dev/null 2>&1 && break; sleep 0.1; done
  at=$(date -u -d '+5 seconds' +%Y-%m-%dT%H:%M:%SZ)
  printf '{"bk":{"local":{"id":"demo:hello","at":"%s","title":"Hello from schedd","body":"This fired at %s"}}}\n' "$at" "$at" \
    | "$bin" push -
  echo "run: a demo notification fires at $at; Ctrl-C stops the daemon" >&2
fi
wait "$daemon"
