#!/usr/bin/env bash
# Daemon CPU per call: what one `Push(s)` costs the daemon against one `ClockShow` (nothing written), on
# the same connection in the same run. One dbus-python client calls ClockShow COUNT times, Push COUNT
# times (unique one-shot ids, due a day ahead), then ClockShow COUNT times again; around each phase it
# reads the daemon's utime/stime (/proc/PID/stat, clock ticks, every thread) and its total run time
# (the sum of /proc/PID/task/*/schedstat, ns: exact, every thread; the tick-sampled user/system split is
# the noisier figure when the loop and the sync thread hand work to each other). The ClockShow baseline is the mean of the two ClockShow phases (the machine
# is shared: drift between phases shows as a difference between them).
# Prints per call: user µs, system µs, total µs (schedstat) for each phase, then RESULT lines:
#   callcpu_push_user_above_clockshow  ours = Push user µs − ClockShow user µs, baseline = 40 µs (target)
#   callcpu_push_total_vs_clockshow    ours = Push total µs, baseline = ClockShow total µs
#   callcpu_push_total_above_clockshow ours = Push total µs − ClockShow total µs (user + system, every thread)
# Then the floor under the first figure, in the same run on the same disk: `schedd-bench pushpath` (SCHEDD_BENCH,
# default the release build's; built unless SKIP_BUILD=1) commits the same kind of rows raw, one per
# transaction with the quota counts' upsert, as the daemon's store must (SQLite's own cost of the row, no
# decoding, no bus), and the engine side of a Push without the bus:
#   callcpu_sqlite_row_commit_floor    ours = raw sqlite3 user µs per one-row transaction, baseline = 40 µs
#   callcpu_push_user_above_floor      ours = Push user µs − ClockShow user µs − that floor (what schedd adds)
# Usage: scripts/bench/callcpu.sh [COUNT]   (default 20000)
set -euo pipefail
source "$(dirname "$0")/common.sh"
count="${1:-20000}"
bench_build schedd-bench
BENCH_BIN="${SCHEDD_BENCH:-$ROOT/.build-release/release/schedd-bench}"
[ -x "$BENCH_BIN" ] || { echo "no schedd-bench at $BENCH_BIN (the floor needs it; set SCHEDD_BENCH)" >&2; exit 3; }
bench_setup
bench_machine
gen_pushes "$count" $(( $(date +%s) + 86400 )) 86400 oneshot cpu > "$BENCH_DIR/rows.ndjson"
bench_start_daemon "$BENCH_DIR/cpu.db" /dev/null "$BENCH_DIR/d.err" --notifier none --tz UTC
"$PY" - "$BUS_ADDR" "$DAEMON_PID" "$BENCH_DIR/rows.ndjson" "$count" > "$BENCH_DIR/calls.out" <<'EOF' || { cat "$BENCH_DIR/calls.out"; exit 1; }
import json, os, sys, time
import dbus
addr, pid, path, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
hz = os.sysconf("SC_CLK_TCK")
rows = [l.rstrip("\n") for l in open(path) if l.strip()][:count]
conn = dbus.bus.BusConnection(addr)
def call(method, sig, args):
    return conn.call_blocking("org.schedd.Scheduler1", "/org/schedd/Scheduler1", "org.schedd.Scheduler1",
                              method, sig, args, timeout=120)
def sample():
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    # Run time of every thread (the loop, the log's sync thread, the decoder, the checkpoint thread):
    # /proc/PID/schedstat alone is the main thread's, which missed the sync once it left the loop.
    run = 0
    for task in os.listdir("/proc/%d/task" % pid):
        try: run += int(open("/proc/%d/task/%s/schedstat" % (pid, task)).read().split()[0])
        except OSError: pass  # a thread that ended between the listing and the read
    return int(f[11]), int(f[12]), run          # utime, stime (ticks), run time (ns)
def phase(name, calls):
    u0, s0, r0 = sample(); t0 = time.monotonic()
    calls()
    u1, s1, r1 = sample(); t1 = time.monotonic()
    user = (u1 - u0) * 1e6 / hz / count; system = (s1 - s0) * 1e6 / hz / count; total = (r1 - r0) / 1e3 / count
    print("%-10s %d calls in %.3f s: daemon user %.1f us, system %.1f us, total %.1f us per call (load %s)"
          % (name, count, t1 - t0, user, system, total, open("/proc/loadavg").read().split()[0]))
    return user, system, total
def clockshow():
    for _ in range(count): call("ClockShow", "", [])
ok = [True]
def push():
    for text in rows:
        ok[0] = ok[0] and json.loads(call("Push", "s", [text]))[0]["status"] == "scheduled"
for _ in range(200): call("ClockShow", "", [])    # warm up: connection, caller identity
a = phase("ClockShow", clockshow)
p = phase("Push", push)
b = phase("ClockShow", clockshow)
if not ok[0]: print("NOT every push was scheduled"); sys.exit(1)
base = [(x + y) / 2 for x, y in zip(a, b)]
print("ClockShow mean: user %.1f us, system %.1f us, total %.1f us; Push - ClockShow: user %.1f us, system %.1f us, total %.1f us"
      % (base[0], base[1], base[2], p[0] - base[0], p[1] - base[1], p[2] - base[2]))
print("RESULT callcpu_push_user_above_clockshow ours=%.1fus baseline=40us ratio=%.3f"
      % (p[0] - base[0], 40 / max(p[0] - base[0], 0.1)))
print("RESULT callcpu_push_total_vs_clockshow ours=%.1fus baseline=%.1fus ratio=%.3f" % (p[2], base[2], base[2] / p[2]))
print("RESULT callcpu_push_total_above_clockshow ours=%.1fus baseline=40us ratio=%.3f"
      % (p[2] - base[2], 40 / max(p[2] - base[2], 0.1)))
EOF
bench_stop_daemon
cat "$BENCH_DIR/calls.out"
# The floor, on the same disk (/tmp) right after the daemon's phases.
floor_count=$(( count < 5000 ? count : 5000 ))
"$BENCH_BIN" pushpath "$floor_count" > "$BENCH_DIR/floor.out"
sed 's/^/floor: /' "$BENCH_DIR/floor.out"
engine_user=$(sed -n 's/^ *engine: user \([0-9.]*\) us.*/\1/p' "$BENCH_DIR/floor.out")
raw_user=$(sed -n 's/^ *raw sqlite3, one row per transaction: user \([0-9.]*\) us.*/\1/p' "$BENCH_DIR/floor.out")
above=$(sed -n 's/^RESULT callcpu_push_user_above_clockshow ours=\([0-9.-]*\)us.*/\1/p' "$BENCH_DIR/calls.out")
[ -n "$raw_user" ] && [ -n "$engine_user" ] && [ -n "$above" ] || { echo "the floor run printed no figures" >&2; exit 1; }
echo "floor: a Push's user CPU above a ClockShow ${above} us = SQLite's own one-row commit ${raw_user} us (raw, same schema," \
     "same disk) + $(echo "$above - $raw_user" | bc) us of schedd's own work (the engine side alone, no bus: ${engine_user} us)"
echo "RESULT callcpu_sqlite_row_commit_floor ours=${raw_user}us baseline=40us ratio=$(echo "scale=3; 40 / $raw_user" | bc)"
echo "RESULT callcpu_push_user_above_floor ours=$(echo "$above - $raw_user" | bc)us baseline=${raw_user}us" \
     "ratio=$(echo "scale=3; $raw_user / ($above - $raw_user)" | bc)"
