#!/usr/bin/env bash
# CPU time per push of one NDJSON `schedd push FILE` of COUNT pushes, the daemon's and the CLI's apart
# (`perf stat -e task-clock`; this VM has no `instructions:u`), and the wall time. A steadier figure
# than pushes/s on a loaded machine. MODE=oneshot|mixed (gen_pushes; default oneshot, a day's span or a
# year's for mixed); PAGE=N creates the database with that page size first (a schedd that picks its own
# page size for new files keeps N: SQLite fixes it at the first page written).
# Usage: [SCHEDD=…] [MODE=…] [PAGE=…] scripts/bench/bulkcpu.sh [COUNT]   (default 20000; SKIP_BUILD=1)
set -euo pipefail
source "$(dirname "$0")/common.sh"
count="${1:-20000}"
bench_build
bench_setup
span=86400; [ "${MODE:-oneshot}" = mixed ] && span=$((365 * 86400))
gen_pushes "$count" $(( $(date +%s) + 86400 )) "$span" "${MODE:-oneshot}" p > "$BENCH_DIR/rows.ndjson"
if [ -n "${PAGE:-}" ]; then sqlite3 "$BENCH_DIR/b.db" "PRAGMA page_size=$PAGE; PRAGMA auto_vacuum=INCREMENTAL; VACUUM;"; fi
bench_start_daemon "$BENCH_DIR/b.db" /dev/null "$BENCH_DIR/d.err" --notifier none --tz UTC
perf stat -e task-clock -p "$DAEMON_PID" -o "$BENCH_DIR/d.stat" 2>/dev/null &
stat_pid=$!
sleep 0.3
t0=$(date +%s.%N)
perf stat -e task-clock -o "$BENCH_DIR/c.stat" "$SCHEDD" push "$BENCH_DIR/rows.ndjson" --bus "$BUS_ADDR" > /dev/null
t1=$(date +%s.%N)
kill -INT "$stat_pid"; wait "$stat_pid" || true
d=$(awk '/task-clock/ {gsub(",","",$1); print $1}' "$BENCH_DIR/d.stat")
c=$(awk '/task-clock/ {gsub(",","",$1); print $1}' "$BENCH_DIR/c.stat")
echo "count $count wall $(echo "$t1 - $t0" | bc) s daemon_cpu ${d} ms cli_cpu ${c} ms per_push_us daemon $(echo "scale=1; $d*1000/$count" | bc) cli $(echo "scale=1; $c*1000/$count" | bc) load $(cut -d' ' -f1 /proc/loadavg) stored $(sqlite3 "$BENCH_DIR/b.db" 'SELECT count(*) FROM schedules') page $(sqlite3 "$BENCH_DIR/b.db" 'PRAGMA page_size')"
bench_stop_daemon
