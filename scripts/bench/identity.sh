#!/usr/bin/env bash
# What a call that needs the caller's identity costs against one that does not (issue 20 item 4,
# issue 22 item 3): PendingCount (identity: the app's count) vs ClockShow (no app), in ONE run on one
# daemon, from one dbus-python connection, interleaved in rounds so both see the same machine.
#   per call:  median round trip (client side) and the daemon's CPU (utime+stime of /proc/PID/stat)
#              per call over all rounds; the ratio PendingCount / ClockShow (target ≤ 1.2).
#   per connection: a fresh connection making ONE PendingCount (what a CLI process costs the daemon:
#              the pin — two asynchronous GetConnectionCredentials, a pidfd and a few procfs reads).
# Usage: scripts/bench/identity.sh [CALLS_PER_ROUND] [ROUNDS]   (default 2000 × 5)
set -euo pipefail
source "$(dirname "$0")/common.sh"
calls="${1:-2000}"
rounds="${2:-5}"
bench_build
bench_setup
bench_machine
bench_start_daemon "$BENCH_DIR/identity.db" /dev/null "$BENCH_DIR/d.err" --notifier none --tz UTC \
    --fake-clock 2026-01-01T00:00:00Z
"$PY" - "$BUS_ADDR" "$DAEMON_PID" "$calls" "$rounds" <<'EOF'
import os, statistics, sys, time
import dbus
addr, pid, calls, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
tick = os.sysconf("SC_CLK_TCK")
def cpu():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / tick  # utime + stime, seconds
conn = dbus.bus.BusConnection(addr)
def call(c, method):
    c.call_blocking("org.schedd.Scheduler1", "/org/schedd/Scheduler1", "org.schedd.Scheduler1", method, "", [],
                    timeout=60)
for m in ("ClockShow", "PendingCount"):
    for _ in range(200): call(conn, m)  # warm up (the first PendingCount pins this connection)
times = {"ClockShow": [], "PendingCount": []}
cpus = {"ClockShow": 0.0, "PendingCount": 0.0}
for _ in range(rounds):
    for m in ("ClockShow", "PendingCount"):
        c0 = cpu()
        for _ in range(calls):
            t0 = time.perf_counter_ns()
            call(conn, m)
            times[m].append(time.perf_counter_ns() - t0)
        cpus[m] += cpu() - c0
n = calls * rounds
show, count = statistics.median(times["ClockShow"]) / 1000, statistics.median(times["PendingCount"]) / 1000
print(f"round trip median: ClockShow {show:.1f} µs, PendingCount {count:.1f} µs ({n} calls each)")
print(f"daemon CPU per call: ClockShow {cpus['ClockShow'] / n * 1e6:.1f} µs, PendingCount {cpus['PendingCount'] / n * 1e6:.1f} µs")
print(f"RESULT pendingcount_vs_clockshow ours={count:.1f}us baseline={show:.1f}us ratio={count / show:.3f} (target <= 1.2)")
fresh = []
c0 = cpu()
for _ in range(200):
    c = dbus.bus.BusConnection(addr)
    t0 = time.perf_counter_ns()
    call(c, "PendingCount")
    fresh.append(time.perf_counter_ns() - t0)
    c.close()
print(f"fresh connection, first PendingCount (pin): median {statistics.median(fresh) / 1000:.1f} µs round trip, "
      f"daemon CPU {(cpu() - c0) / 200 * 1e6:.1f} µs per connection (incl. Hello/NameOwnerChanged)")
EOF
bench_stop_daemon
