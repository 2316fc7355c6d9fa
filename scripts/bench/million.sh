#!/usr/bin/env bash
# 1,000,000 pending schedules (80% one-shots spread over a year, 20% calendar expressions), loaded
# through the bulk path (NDJSON `schedd push FILE` → PushBatch of 1000 → Engine.pushBatch, one group
# commit per batch). Then, on a restart: daemon start to READY=1 (own NOTIFY_SOCKET), VmRSS, and
# `schedd list --limit 20` latency (whole CLI process, 50 runs; and the bare D-Bus call), and the cost of
# a ListPage at depth 0, COUNT/2 and COUNT-20 (500,000 and 999,980 at 1M) against List with OFFSET (the
# baseline, same run).
# Usage: scripts/bench/million.sh [COUNT]     (SKIP_BUILD=1 to reuse the release build, KEEP=1 keeps files)
set -euo pipefail
source "$(dirname "$0")/common.sh"
count="${1:-1000000}"
bench_build
bench_setup
bench_machine

now=$(date +%s)
gen_pushes "$count" $((now + 86400)) $((365 * 86400)) mixed > "$BENCH_DIR/load.ndjson"
echo "generated $count pushes ($(du -h "$BENCH_DIR/load.ndjson" | cut -f1))"

db="$BENCH_DIR/schedd.db"
bench_start_daemon "$db" /dev/null "$BENCH_DIR/daemon.err" --notifier none --tz UTC
load_s=$(timed sh -c '"$0" push "$1" --json --bus "$2" > "$3" 2> "$3.err"' "$SCHEDD" "$BENCH_DIR/load.ndjson" "$BUS_ADDR" "$BENCH_DIR/push.out" || true)
scheduled=$(grep -c '"status":"scheduled"' "$BENCH_DIR/push.out" || true)
echo "bulk push: $scheduled of $count scheduled in ${load_s} s ($(echo "$count / $load_s" | bc) pushes/s); loaded RSS $(rss_kb "$DAEMON_PID") kB"
if [ "$scheduled" != "$count" ]; then
    # Every figure below assumes COUNT pending schedules (the paging cursors are read at depths of COUNT):
    # a short load would print rates and depths that are not what they say. Stop here.
    echo "the bulk load stopped short: $scheduled of $count scheduled; the CLI's stderr begins with:"
    head -3 "$BENCH_DIR/push.out.err"
    echo "and the daemon's stderr ends with:"
    tail -5 "$BENCH_DIR/daemon.err"
    kill -0 "$DAEMON_PID" 2>/dev/null || echo "(the daemon is gone)"
    bench_stop_daemon || true
    echo "RESULT million_load_rate: not measured (the load stopped short)"
    exit 1
fi
echo "load after the bulk push: $(cut -d' ' -f1-3 /proc/loadavg)"
bench_stop_daemon
# On disk after the daemon's clean stop (its last connection checkpoints the WAL and removes it).
db_bytes=$(stat -c %s "$db")
wal_bytes=$(stat -c %s "$db-wal" 2>/dev/null || echo 0)
per_schedule=$(echo "scale=1; ($db_bytes + $wal_bytes) / $count" | bc)
echo "database: $db_bytes bytes + $wal_bytes WAL = $per_schedule B per schedule"

ready=()
for run in 1 2 3; do
    bench_start_daemon "$db" /dev/null "$BENCH_DIR/daemon.err" --notifier none --tz UTC
    ms=$READY_MS
    ready+=("$ms")
    sleep 1
    rss=$(rss_kb "$DAEMON_PID")
    echo "restart $run: READY=1 after $ms ms, VmRSS $rss kB, threads $(ls /proc/$DAEMON_PID/task | wc -l), load $(cut -d' ' -f1 /proc/loadavg)"
    [ "$run" = 3 ] || bench_stop_daemon
done
pending=$(sd list --json --limit 1 | head -c 200)
echo "first pending: $pending"

# Start-up parts (sqlite3 CLI, warm cache): the covering scan the wheel is restored from, and the full
# quick_check a start no longer runs (only after an unclean shutdown, in the background; docs/store.md).
qc=$(timed sqlite3 "$db" 'PRAGMA quick_check(1)')
sel=$(timed sqlite3 "$db" 'SELECT key, next_due FROM schedules INDEXED BY schedules_by_app_next')
echo "start-up parts (sqlite3 CLI): restore scan $sel s; PRAGMA quick_check(1) (not run at start) $qc s"

# The daemon's side of List (one D-Bus round trip from an already connected client, no CLI start-up).
"$PY" - "$BUS_ADDR" "$((count / 2))" "$((count - 20))" <<'PYEOF'
import sys, time, dbus
conn = dbus.bus.BusConnection(sys.argv[1])
def call(limit, offset):
    t = time.monotonic()
    conn.call_blocking("org.schedd.Scheduler1", "/org/schedd/Scheduler1", "org.schedd.Scheduler1", "List", "uu",
                       [limit, offset], timeout=60)
    return (time.monotonic() - t) * 1000
for limit, offset in ((20, 0), (20, int(sys.argv[2])), (20, int(sys.argv[3]))):
    ms = sorted(call(limit, offset) for _ in range(50))
    print("D-Bus List(limit %d, offset %d): p50 %.3f ms, max %.3f ms (50 calls)" % (limit, offset, ms[25], ms[-1]))
PYEOF

# Keyset paging (ListPage) at the same depths, against the OFFSET-based List above as the baseline in
# this run. The cursors are those a client holds after reading 500,000 and 999,980 rows: the (next_due,
# key) of the row before that depth, read with the sqlite3 CLI (the daemon's own cursor text, v1:NEXT:KEY).
# (Depths half and 20 before the end of COUNT: 500,000 and 999,980 at 1M.)
mid=$((count / 2)); last=$((count - 20))
c500=$(sqlite3 "$db" "SELECT next_due || ':' || key FROM schedules ORDER BY next_due, key LIMIT 1 OFFSET $((mid - 1))")
c999=$(sqlite3 "$db" "SELECT next_due || ':' || key FROM schedules ORDER BY next_due, key LIMIT 1 OFFSET $((last - 1))")
"$PY" - "$BUS_ADDR" "v1:$c500" "v1:$c999" "$mid" "$last" > "$BENCH_DIR/paging.out" <<'PYEOF'
import sys, time, dbus
conn = dbus.bus.BusConnection(sys.argv[1])
def timed(method, sig, args):
    t = time.monotonic()
    reply = conn.call_blocking("org.schedd.Scheduler1", "/org/schedd/Scheduler1", "org.schedd.Scheduler1", method,
                               sig, args, timeout=60)
    return (time.monotonic() - t) * 1000, reply
mid, last = int(sys.argv[4]), int(sys.argv[5])
for depth, cursor, offset in ((0, "", 0), (mid, sys.argv[2], mid), (last, sys.argv[3], last)):
    page = sorted(timed("ListPage", "su", [cursor, 20])[0] for _ in range(50))
    base = sorted(timed("List", "uu", [20, offset])[0] for _ in range(50))
    # The same rows either way: the page at the cursor is the OFFSET page.
    same = timed("ListPage", "su", [cursor, 20])[1][0] == timed("List", "uu", [20, offset])[1]
    print("ListPage(limit 20) at depth %d: p50 %.3f ms, max %.3f ms; List(limit 20, offset %d): p50 %.3f ms, "
          "max %.3f ms (50 calls each; same rows: %s)" % (depth, page[25], page[-1], offset, base[25], base[-1], same))
    print("PAGE %d %.3f %.3f" % (depth, page[25], base[25]))
PYEOF
grep -v '^PAGE' "$BENCH_DIR/paging.out"
while read -r _ depth ours base; do
    result "million_listpage_depth${depth}_p50" "$ours" "$base" ms lower
done < <(grep '^PAGE' "$BENCH_DIR/paging.out")

: > "$BENCH_DIR/list.ms"
for i in $(seq 50); do
    echo "scale=3; $(timed "$SCHEDD" list --limit 20 --bus "$BUS_ADDR") * 1000 / 1" | bc >> "$BENCH_DIR/list.ms"
done
read -r lp50 lp99 lmax _ < <(percentiles "$BENCH_DIR/list.ms")
: > "$BENCH_DIR/listj.ms"
for i in $(seq 20); do
    echo "scale=3; $(timed "$SCHEDD" list --limit 20 --offset "$mid" --json --bus "$BUS_ADDR") * 1000 / 1" | bc >> "$BENCH_DIR/listj.ms"
done
read -r jp50 _ jmax _ < <(percentiles "$BENCH_DIR/listj.ms")
help_ms=$(echo "scale=3; $(timed "$SCHEDD" --help) * 1000 / 1" | bc)
echo "list --limit 20: p50 $lp50 ms, p99 $lp99 ms, max $lmax ms (50 runs, whole CLI process; 'schedd --help' alone: $help_ms ms)"
echo "list --limit 20 --offset $mid --json: p50 $jp50 ms, max $jmax ms (the CLI reads and skips $((mid / 1000)) pages of 1,000)"
rss=$(rss_kb "$DAEMON_PID")
echo "VmRSS after the list calls: $rss kB"
best_ready=$(printf '%s\n' "${ready[@]}" | sort -g | head -1)
worst_ready=$(printf '%s\n' "${ready[@]}" | sort -g | tail -1)
result million_start_to_ready "$worst_ready" 500 ms lower
result million_vmrss "$(echo "scale=1; $rss / 1024" | bc)" 80 MB lower
result million_bytes_per_schedule "$per_schedule" 250 B lower
result million_load_rate "$(echo "$count / $load_s" | bc)" 50000 pushes/s higher
result million_list_limit20_p50 "$lp50" 50 ms lower
result million_list_limit20_max "$lmax" 50 ms lower
echo "(baselines are the targets of issue 19 and issue 9; start-to-READY worst of 3 restarts, best $best_ready ms; list p50 and worst of 50 CLI runs)"
