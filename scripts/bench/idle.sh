#!/usr/bin/env bash
# Idle wake-ups: COUNT pending one-shots (default 10,000; the earliest an hour ahead, so none due in
# the window), the real clock, the stdout notifier; the daemon left alone for SECONDS (default 60).
# Context switches (voluntary + nonvoluntary) from /proc/PID/status and every /proc/PID/task/*/status
# before and after: each wake-up of a sleeping thread is one voluntary switch at least.
# Usage: scripts/bench/idle.sh [COUNT] [SECONDS]
set -euo pipefail
source "$(dirname "$0")/common.sh"
count="${1:-10000}"
seconds="${2:-60}"
bench_build
bench_setup
bench_machine
gen_pushes "$count" $(( $(date +%s) + 3600 )) $((365 * 86400)) oneshot idle > "$BENCH_DIR/idle.ndjson"
bench_start_daemon "$BENCH_DIR/idle.db" "$BENCH_DIR/idle.out" "$BENCH_DIR/idle.err" --notifier stdout
sd push "$BENCH_DIR/idle.ndjson" > /dev/null
echo "pending: $count, next due $(sd list --limit 1 --json | sed 's/.*"next":"\([^"]*\)".*/\1/')"
sleep 2

# switches PID: "voluntary nonvoluntary" summed over the process's threads, and the thread count.
switches() {
    local v=0 n=0 t=0 f
    for f in /proc/"$1"/task/*/status; do
        t=$((t + 1))
        v=$((v + $(awk '/^voluntary_ctxt_switches:/ {print $2}' "$f")))
        n=$((n + $(awk '/^nonvoluntary_ctxt_switches:/ {print $2}' "$f")))
    done
    echo "$v $n $t"
}
pid_line() { awk '/ctxt_switches/ {printf "%s %s ", $1, $2}' "/proc/$1/status"; }

read -r v0 n0 threads < <(switches "$DAEMON_PID")
p0=$(pid_line "$DAEMON_PID")
log0=$(wc -l < "$BENCH_DIR/idle.err")
sleep "$seconds"
read -r v1 n1 _ < <(switches "$DAEMON_PID")
p1=$(pid_line "$DAEMON_PID")
shown=$(wc -l < "$BENCH_DIR/idle.out")
logged=$(( $(wc -l < "$BENCH_DIR/idle.err") - log0 ))
echo "threads: $threads"
echo "/proc/PID/status before: $p0"
echo "/proc/PID/status after:  $p1"
echo "all threads: voluntary $v0 → $v1, nonvoluntary $n0 → $n1 over ${seconds} s; notifications shown: $shown; log lines meanwhile: $logged"
[ "$logged" -gt 0 ] && tail -n "$logged" "$BENCH_DIR/idle.err"
wakeups=$(( (v1 - v0) + (n1 - n0) ))
echo "RESULT idle_wakeups_${seconds}s ours=$wakeups baseline=0 pending=$count shown=$shown (target: zero beyond due notifications)"
