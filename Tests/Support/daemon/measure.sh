#!/usr/bin/env bash
# Measures the daemon's idle wake-ups and its fake-clock throughput (issue 4's closing figures).
#   Tests/Support/daemon/measure.sh [SCHEDD_BINARY] [IDLE_SECONDS]
# 1. Idle: a real-clock daemon with 10,000 pending schedules (due in a month) sits for IDLE_SECONDS
#    (default 60); prints the context switches of its process from /proc/PID/status over that time.
# 2. Throughput: a fake-clock daemon with 100,000 one-shots due within one day; one `clock advance 1d`
#    delivers them all (stdout notifier into /dev/null); prints notifications per second.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${1:-$here/../../../.build-release/release/schedd}"
idle="${2:-60}"
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
source "$here/../bus/private-bus.bash"
start_private_bus --config-file="$here/../bus/test-bus.conf"
address="$BUS_ADDRESS"
pids+=("$BUS_PID")
wait_ready() { for _ in $(seq 200); do "$bin" clock show --bus "$address" >/dev/null 2>&1 && return; sleep 0.05; done; exit 3; }
switches() { awk '/^voluntary_ctxt_switches|^nonvoluntary_ctxt_switches/ {s += $2} END {print s}' "/proc/$1/status"; }
now_ms() { date +%s%3N; }
# Waits (at most 10 s) until the daemon has finished what the last call left it to do: no context
# switch in 200 ms. Instead of a fixed second, which a loaded machine may not give it.
wait_quiet() {
  local a
  for _ in $(seq 50); do a=$(switches "$1"); sleep 0.2; [ "$(switches "$1")" = "$a" ] && return; done
}

# 1. Idle with 10,000 pending.
TZ=UTC "$bin" run --bus "$address" --db "$work/idle.db" --notifier none 2>/dev/null &
daemon=$!; pids+=("$daemon"); wait_ready
base=$(date -u -d '+30 days' +%s)
for i in $(seq 0 9999); do
  printf '{"bk":{"local":{"id":"idle:%d","at":"%s","title":"t"}}}\n' "$i" "$(date -u -d "@$((base + i * 60))" +%Y-%m-%dT%H:%M:%SZ)"
done > "$work/idle.ndjson"
"$bin" push "$work/idle.ndjson" --bus "$address" > /dev/null
pending=$("$bin" list --json --bus "$address" | grep -o '"id"' | wc -l)
wait_quiet "$daemon"
before=$(switches "$daemon")
sleep "$idle"  # the measured idle window itself (a fixed span on purpose)
after=$(switches "$daemon")
echo "IDLE pending=$pending seconds=$idle context_switches=$((after - before))"
kill "$daemon"; wait "$daemon" 2>/dev/null || true

# 2. Fake-clock throughput over 100,000 due.
TZ=UTC "$bin" run --bus "$address" --db "$work/fake.db" --notifier stdout --fake-clock 2026-01-01T00:00:00Z \
    > /dev/null 2>&1 &
daemon=$!; pids+=("$daemon"); wait_ready
/usr/bin/python3 - "$work/fake.ndjson" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(100_000):
        s = i * 86_399 // 100_000
        f.write('{"bk":{"local":{"id":"bulk:%d","at":"2026-01-01T%02d:%02d:%02dZ","title":"t"}}}\n'
                % (i, s // 3600, s // 60 % 60, s % 60))
PY
t0=$(now_ms)
"$bin" push "$work/fake.ndjson" --bus "$address" > /dev/null
t1=$(now_ms)
"$bin" clock advance 1d --bus "$address" > /dev/null
t2=$(now_ms)
fired=$("$bin" history --limit 200000 --json --bus "$address" | grep -o '"event":"fired"' | wc -l)
echo "PUSH count=100000 ms=$((t1 - t0)) per_second=$((100000 * 1000 / (t1 - t0 + 1)))"
echo "ADVANCE fired=$fired ms=$((t2 - t1)) notifications_per_second=$((fired * 1000 / (t2 - t1 + 1)))"
