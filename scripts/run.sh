#!/usr/bin/env bash
# Quick start: installs what is missing, builds schedd (release) and runs the daemon in the foreground.
# With no session bus (a server, a container, CI) it starts a private one; with no notification
# server on that bus it uses the stdout notifier. Once the daemon serves, it prints the line that
# reaches it from a second terminal and leaves that line in $XDG_RUNTIME_DIR/schedd-run-UID.env
# (else /run/user/UID, else /tmp), which the CLI's "no daemon" errors quote (docs/cli.md); the file
# goes when the daemon stops. A demo notification is pushed to fire 5 s after start.
#   scripts/run.sh               # daemon + demo notification; Ctrl-C stops
#   scripts/run.sh --no-demo     # just the daemon
#   scripts/run.sh -- ARGS…      # extra arguments for `schedd run`
#   SCHEDD_BINARY=PATH scripts/run.sh   # run that schedd; no build, no package check
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
if [ -n "${SCHEDD_BINARY:-}" ]; then   # a schedd built already (the tests: RunScriptTests)
  bindir="$(cd "$(dirname "$SCHEDD_BINARY")" && pwd)"; bin="$bindir/$(basename "$SCHEDD_BINARY")"
else
  bash scripts/install-deps.sh
  export PATH="/opt/swift/usr/bin:$PATH"
  echo "run: building schedd (release; the first build takes a few minutes)" >&2
  swift build -c release --static-swift-stdlib --product schedd >&2   # SwiftPM's own progress
  bindir="$(swift build -c release --static-swift-stdlib --show-bin-path)"
  bin="$bindir/schedd"
fi

bus_pid=""; daemon=""; envfile=""
cleanup() {  # the line's file first (it must never name a bus that is gone), then the daemon, then its bus
  [ -z "$envfile" ] || rm -f "$envfile"
  if [ -n "$daemon" ]; then kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; fi
  if [ -n "$bus_pid" ]; then BUS_PID="$bus_pid"; stop_private_bus; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ] && [ -n "${XDG_RUNTIME_DIR:-}" ] && [ -S "$XDG_RUNTIME_DIR/bus" ]; then
  export DBUS_SESSION_BUS_ADDRESS="unix:path=$XDG_RUNTIME_DIR/bus"   # the login session's bus
fi
if [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
  source Tests/Support/bus/private-bus.bash
  start_private_bus --session
  export DBUS_SESSION_BUS_ADDRESS="$BUS_ADDRESS"
  bus_pid="$BUS_PID"
  echo "run: started a private session bus at $DBUS_SESSION_BUS_ADDRESS" >&2
fi
notifier=stdout
if busctl --user status org.freedesktop.Notifications >/dev/null 2>&1; then notifier=desktop; fi

db="${XDG_STATE_HOME:-$HOME/.local/state}/schedd/schedd.db"
echo "run: schedd run --notifier $notifier --db $db ${extra[*]:-}" >&2
"$bin" run --notifier "$notifier" --db "$db" "${extra[@]}" &
daemon=$!
for _ in $(seq 300); do
  "$bin" list >/dev/null 2>&1 && break
  kill -0 "$daemon" 2>/dev/null || { wait "$daemon"; exit $?; }
  sleep 0.1
done

# The line for a second terminal: it works in a fresh shell with nothing set.
line="export DBUS_SESSION_BUS_ADDRESS='$DBUS_SESSION_BUS_ADDRESS'; export PATH='$bindir':\"\$PATH\""
uid=$(id -u)
if [ -n "${XDG_RUNTIME_DIR:-}" ] && [ -d "$XDG_RUNTIME_DIR" ] && [ -w "$XDG_RUNTIME_DIR" ]; then dir="$XDG_RUNTIME_DIR"
elif [ -d "/run/user/$uid" ] && [ -w "/run/user/$uid" ]; then dir="/run/user/$uid"
else dir=/tmp; fi
tmp=$(umask 077; mktemp "$dir/schedd-run-$uid.XXXXXX")
printf '# scripts/run.sh: schedd (PID %s) serves this bus while it runs; ". %s" reaches it.\nSCHEDD_RUN_PID=%s\n%s\n%s\n' \
  "$daemon" "$dir/schedd-run-$uid.env" "$daemon" "export DBUS_SESSION_BUS_ADDRESS='$DBUS_SESSION_BUS_ADDRESS'" \
  "export PATH='$bindir':\"\$PATH\"" > "$tmp"
if mv -f "$tmp" "$dir/schedd-run-$uid.env" 2>/dev/null; then envfile="$dir/schedd-run-$uid.env"; else rm -f "$tmp"; fi
cat >&2 <<MSG
run: schedd serves (PID $daemon). In a second terminal, paste:

  $line

then e.g.: schedd add 'Call mum' --in 2h; schedd list
MSG

if [ "$demo" = 1 ]; then
  at=$(date -u -d '+5 seconds' +%Y-%m-%dT%H:%M:%SZ)
  printf '{"bk":{"local":{"id":"demo:hello","at":"%s","title":"Hello from schedd","body":"This fired at %s"}}}\n' "$at" "$at" \
    | "$bin" push -
  echo "run: a demo notification fires at $at; Ctrl-C stops the daemon" >&2
fi
wait "$daemon"
