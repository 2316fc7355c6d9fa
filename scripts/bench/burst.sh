#!/usr/bin/env bash
# 100,000 one-shot notifications due in the same minute, pushed in shuffled order (NDJSON bulk push),
# delivered by the stdout notifier to a file. Checks: every one delivered exactly once, in due order.
#   fake: `schedd run --fake-clock`; ONE `schedd clock advance 2h` over all of them → notifications/s
#         (wall time of the advance call, which answers after all were delivered and recorded).
#   real: the real clock; the daemon's stdout goes through a pipe to a reader that stamps each line
#         with CLOCK_REALTIME when read → lateness = read time − due (an upper bound of the write
#         time − due), p50/p99/max, and throughput = delivered / (last read − first due).
# Usage: scripts/bench/burst.sh [fake|real|both] [COUNT] [SPAN_SECONDS]   (SPAN 60 = "the same minute")
set -euo pipefail
source "$(dirname "$0")/common.sh"
which="${1:-both}"
count="${2:-100000}"
span="${3:-60}"
bench_build
bench_setup
bench_machine

# check_delivery FILE STAMPED(0|1): prints "delivered unique in_order p50 p99 max first_due last_t"
check_delivery() {
    "$PY" - "$1" "$2" "$count" <<'EOF'
import datetime, json, sys
path, stamped, count = sys.argv[1], sys.argv[2] == "1", int(sys.argv[3])
def t(s): return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
ids, dues, lates, last_due, in_order, last_t = set(), [], [], None, True, None
for line in open(path):
    if stamped:
        stamp, _, line = line.partition("\t")
    n = json.loads(line)
    due = t(n["due"])
    if last_due is not None and due < last_due: in_order = False
    last_due = due
    ids.add(n["id"]); dues.append(due)
    when = float(stamp) if stamped else t(n["at"])
    lates.append((when - due) * 1000); last_t = when
lates.sort()
q = lambda p: lates[min(len(lates) - 1, int(len(lates) * p))] if lates else float("nan")
print(len(dues), len(ids), "yes" if in_order and len(ids) == count else "NO",
      "%.3f %.3f %.3f" % (q(0.5), q(0.99), lates[-1] if lates else float("nan")), min(dues) if dues else 0, last_t or 0)
EOF
}

if [ "$which" = fake ] || [ "$which" = both ]; then
    t0=1780000000   # 2026-05-28T20:26:40Z
    gen_pushes "$count" $((t0 + 3600)) "$span" oneshot fake | shuf --random-source=<(yes) > "$BENCH_DIR/fake.ndjson"
    bench_start_daemon "$BENCH_DIR/fake.db" "$BENCH_DIR/fake.out" "$BENCH_DIR/fake.err" \
        --notifier stdout --tz UTC --fake-clock 2026-05-28T20:26:40Z
    echo "fake: pushed $count (shuffled) in $(timed "$SCHEDD" push "$BENCH_DIR/fake.ndjson" --bus "$BUS_ADDR") s"
    adv=$(timed "$SCHEDD" clock advance 2h --bus "$BUS_ADDR")
    bench_stop_daemon
    read -r delivered unique ordered p50 p99 max _ _ < <(check_delivery "$BENCH_DIR/fake.out" 0)
    rate=$(echo "scale=1; $delivered / $adv" | bc)
    echo "fake: one 'clock advance 2h' delivered $delivered ($unique distinct ids, all in due order: $ordered) in $adv s = $rate/s"
    echo "fake: lateness in fake time (at − due): p50 $p50 ms, p99 $p99 ms, max $max ms"
    echo "RESULT burst_fake_advance_throughput ours=${rate}notif/s delivered=$delivered in_order=$ordered p99_late_fake=${p99}ms"
fi

if [ "$which" = real ] || [ "$which" = both ]; then
    lead=45   # seconds to push before the first is due
    first=$(( $(date +%s) + lead ))
    gen_pushes "$count" "$first" "$span" oneshot real | shuf --random-source=<(yes) > "$BENCH_DIR/real.ndjson"
    mkfifo "$BENCH_DIR/out.fifo"
    "$PY" -c '
import sys, time
out = open(sys.argv[2], "w")
with open(sys.argv[1], "rb") as f:
    for line in f:
        out.write("%.6f\t%s" % (time.time(), line.decode()))
' "$BENCH_DIR/out.fifo" "$BENCH_DIR/real.stamped" &
    stamper=$!
    bench_start_daemon "$BENCH_DIR/real.db" "$BENCH_DIR/out.fifo" "$BENCH_DIR/real.err" --notifier stdout --tz UTC
    echo "real: pushed $count (shuffled) in $(timed "$SCHEDD" push "$BENCH_DIR/real.ndjson" --bus "$BUS_ADDR") s; first due in $(( first - $(date +%s) )) s"
    while [ "$(date +%s)" -lt $(( first + span + 5 )) ]; do sleep 1; done
    for _ in $(seq 60); do   # wait for the backlog, if any
        [ "$(sd list --limit 1 --json)" = "[]" ] && break
        sleep 1
    done
    rss=$(rss_kb "$DAEMON_PID")
    bench_stop_daemon
    wait "$stamper"
    read -r delivered unique ordered p50 p99 max first_due last_t < <(check_delivery "$BENCH_DIR/real.stamped" 1)
    rate=$(echo "scale=1; $delivered / ($last_t - $first_due)" | bc)
    echo "real: delivered $delivered ($unique distinct ids, all in due order: $ordered) between the first due and $(echo "$last_t - $first_due" | bc) s later = $rate/s (due rate $(echo "scale=1; $count / ($span + 0.001)" | bc)/s); VmRSS $rss kB"
    echo "real: lateness (line read − due): p50 $p50 ms, p99 $p99 ms, max $max ms"
    echo "RESULT burst_real_lateness_p99 ours=${p99}ms p50=${p50}ms max=${max}ms throughput=${rate}notif/s delivered=$delivered in_order=$ordered"
fi
