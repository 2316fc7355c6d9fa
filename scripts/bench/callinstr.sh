#!/usr/bin/env bash
# Daemon instructions per call (issue 35 item 2), counted by callgrind so that the figure does not move
# with the machine's load (this VM has no hardware counters for `perf stat -e instructions`, and CPU time
# triples when another process shares the cores). The daemon runs under valgrind --tool=callgrind; one
# dbus-python client warms up (200 ClockShow), then calls ClockShow ×COUNT, Push ×COUNT (unique one-shots
# due a day ahead, one per call, each waiting for its answer) and ClockShow ×COUNT; callgrind_control
# zeroes the counters before and dumps them after each phase (every thread of the daemon, the sync thread
# included). Prints instructions (Ir) per call of each phase, Push minus the mean ClockShow, the top
# functions of the Push phase (exclusive), and
#   RESULT callinstr_push_above_clockshow   ours = Push Ir − ClockShow Ir per call, baseline = ClockShow Ir
# Run it on two builds (SCHEDD=…) for before and after. Needs valgrind (not a CI dependency).
# Usage: [SKIP_BUILD=1 SCHEDD=…] [OUT=dir] scripts/bench/callinstr.sh [COUNT]   (default 1000)
set -euo pipefail
source "$(dirname "$0")/common.sh"
count="${1:-1000}"
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 3; }
bench_build
bench_setup
bench_machine
out="${OUT:-$BENCH_DIR}"
mkdir -p "$out"
gen_pushes "$count" $(( $(date +%s) + 86400 )) 86400 oneshot instr > "$BENCH_DIR/rows.ndjson"
real="$SCHEDD"
SCHEDD="$BENCH_DIR/vg-schedd"
printf '#!/bin/sh\nexec valgrind --tool=callgrind --callgrind-out-file=%s/callgrind.out.%%p "%s" "$@"\n' "$out" "$real" > "$SCHEDD"
chmod +x "$SCHEDD"
bench_start_daemon "$BENCH_DIR/i.db" /dev/null "$BENCH_DIR/d.err" --notifier none --tz UTC
"$PY" - "$BUS_ADDR" "$DAEMON_PID" "$BENCH_DIR/rows.ndjson" "$count" <<'EOF'
import json, subprocess, sys
import dbus
addr, pid, path, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rows = [l.rstrip("\n") for l in open(path) if l.strip()][:count]
conn = dbus.bus.BusConnection(addr)
def call(method, sig, args):
    return conn.call_blocking("org.schedd.Scheduler1", "/org/schedd/Scheduler1", "org.schedd.Scheduler1",
                              method, sig, args, timeout=600)
def control(flag):
    subprocess.run(["callgrind_control", flag, pid], check=True, stdout=subprocess.DEVNULL)
for _ in range(200): call("ClockShow", "", [])
control("-z")
for _ in range(count): call("ClockShow", "", [])
control("-d")
ok = True
for text in rows:
    ok = ok and json.loads(call("Push", "s", [text]))[0]["status"] == "scheduled"
control("-d")
for _ in range(count): call("ClockShow", "", [])
control("-d")
print("all scheduled:", ok)
EOF
pid=$DAEMON_PID
bench_stop_daemon
# Dumps are numbered .1, .2, .3 in phase order (the last, unnumbered file holds what ran at exit).
ir() { callgrind_annotate "$1" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'; }
mapfile -t files < <(ls -v "$out"/callgrind.out."$pid".[0-9]* 2>/dev/null)
[ "${#files[@]}" -ge 3 ] || { echo "expected three dumps, found: ${files[*]:-none}" >&2; exit 1; }
show1=$(ir "${files[0]}"); push=$(ir "${files[1]}"); show2=$(ir "${files[2]}")
read -r s1 p s2 sm above < <(echo "$show1 $push $show2 $count" | awk '{
    s1 = $1 / $4; p = $2 / $4; s2 = $3 / $4; m = (s1 + s2) / 2
    printf "%.0f %.0f %.0f %.0f %.0f\n", s1, p, s2, m, p - m }')
echo "instructions per call: ClockShow $s1, Push $p, ClockShow $s2; Push − ClockShow mean = $above"
echo "--- the Push phase, exclusive (top 25)"
callgrind_annotate --inclusive=no "${files[1]}" 2>/dev/null | sed -n '/^Ir/,$p' | grep -v '^-' | head -27
echo "--- the Push phase, inclusive (top 40)"
callgrind_annotate --inclusive=yes "${files[1]}" 2>/dev/null | sed -n '/^Ir/,$p' | grep -v '^-' | head -42
result callinstr_push_above_clockshow "$above" "$sm" Ir lower
