#!/usr/bin/env bash
# Profiles the daemon's Push path: one dbus-python client pushes COUNT unique one-shots (one Push per
# call) while `perf record` (TOOL=perf, default) records the daemon; prints the top entries (perf report
# --no-children). TOOL=callgrind explains why callgrind cannot run the daemon here.
# Needs linux-perf (apt-get install linux-perf; not a CI dependency).
# Usage: [TOOL=perf|callgrind] [OUT=dir] scripts/bench/profilepush.sh [COUNT]   (default 5000)
set -euo pipefail
source "$(dirname "$0")/common.sh"
count="${1:-5000}"
tool="${TOOL:-perf}"
bench_build
bench_setup
bench_machine
out="${OUT:-$BENCH_DIR}"
mkdir -p "$out"
gen_pushes "$count" $(( $(date +%s) + 86400 )) 86400 oneshot prof > "$BENCH_DIR/rows.ndjson"
push_all() {
    "$PY" - "$BUS_ADDR" "$BENCH_DIR/rows.ndjson" <<'EOF'
import json, sys
import dbus
conn = dbus.bus.BusConnection(sys.argv[1])
for _ in range(200):
    conn.call_blocking("org.schedd.Scheduler1", "/org/schedd/Scheduler1", "org.schedd.Scheduler1", "ClockShow", "", [], timeout=120)
ok = True
for text in open(sys.argv[2]):
    r = conn.call_blocking("org.schedd.Scheduler1", "/org/schedd/Scheduler1", "org.schedd.Scheduler1",
                           "Push", "s", [text.rstrip("\n")], timeout=600)
    ok = ok and json.loads(r)[0]["status"] == "scheduled"
print("all scheduled:", ok)
EOF
}
if [ "$tool" = callgrind ]; then
    # Tried 2026-12-06: valgrind 3.19 (Debian 12) answers pidfd_open with ENOSYS, and the daemon refuses
    # every caller it cannot pin ("cannot pin the caller's process … Function not implemented"), so no
    # Push reaches the engine. The engine side runs under callgrind without a bus: schedd-bench pushpath.
    echo "TOOL=callgrind cannot profile the daemon here (valgrind 3.19 has no pidfd_open; callers are refused);" \
         "run: valgrind --tool=callgrind .build-release/release/schedd-bench pushpath" >&2
    exit 3
else
    bench_start_daemon "$BENCH_DIR/p.db" /dev/null "$BENCH_DIR/d.err" --notifier none --tz UTC
    perf record -e ${PERF_EVENT:-cpu-clock} -F 2000 -g -o "$out/perf.data" -p "$DAEMON_PID" 2> "$BENCH_DIR/perf.err" &
    perf_pid=$!
    push_all
    kill -INT "$perf_pid"; wait "$perf_pid" || true
    bench_stop_daemon
    perf report -i "$out/perf.data" --no-children --percent-limit 0.7 --stdio -g none 2>/dev/null | grep -v '^$' | head -60
fi
