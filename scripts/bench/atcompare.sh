#!/usr/bin/env bash
# at(1) comparison: the same COUNT (default 10,000) one-shot notifications, due at whole minutes
# spread over the next year, submitted
#   baseline: with at(1) to atd, one `at -t` per notification from a shell loop (the job runs
#             notify-send with the title and body) — the way users script it;
#   ours:     with `schedd push -` per notification from the same kind of loop (acknowledged after
#             durability), and with one NDJSON `schedd push FILE` (no at equivalent).
# Then per process (issue 20 item 5): RUNS (default 30) rounds, each running once, in a shuffled order,
# `at` submitting one job, `schedd push -` of one new notification (human output, as scripted), `schedd
# --version` and /bin/true (the spawn floor), and the same two schedd commands of $SCHEDD_BEFORE when set
# (e.g. main's binary, against the same daemon). Median wall time (spawn to reap) and median CPU (the
# child's user + system from wait4) of each; RESULT lines compare `schedd push` with `at`.
# Needs `at` (apt-get install at). Starts atd by hand when it is not running (no systemd here) and
# stops it again; jobs go to queue "s" and are removed afterwards.
# Usage: [RUNS=30] [SCHEDD_BEFORE=BINARY] scripts/bench/atcompare.sh [COUNT]   (COUNT 0: per process only)
set -euo pipefail
source "$(dirname "$0")/common.sh"
count="${1:-10000}"
command -v at > /dev/null || { echo "at(1) is not installed (apt-get install at)" >&2; exit 3; }
bench_build
bench_setup
bench_machine
export TZ=UTC
started_atd=""
if ! pgrep -x atd > /dev/null; then
    /usr/sbin/atd
    started_atd=1
fi
# atrm is quadratic (10,000 ids take many minutes), so queue "s" — verified empty before we start —
# is emptied by removing its job files, which is all atrm does per job besides the checks.
cleanup_at() {
    if [ -n "$started_atd" ] && [ -f /run/atd.pid ]; then kill "$(cat /run/atd.pid)" 2>/dev/null || true; fi
    find /var/spool/cron/atjobs -maxdepth 1 -type f -name 's*' -delete
    bench_cleanup
}
trap cleanup_at EXIT
if [ "$(atq -q s | wc -l)" != 0 ]; then echo "queue s of atd is not empty; refusing" >&2; exit 3; fi

# at.tsv: "YYYYMMDDhhmm<TAB>title<TAB>body"; at.ndjson: the same notifications as pushes.
"$PY" - "$count" "$(date +%s)" "$BENCH_DIR/at.tsv" "$BENCH_DIR/at.ndjson" <<'EOF'
import datetime, json, sys
count, now, tsv, nd = int(sys.argv[1]), int(sys.argv[2]), open(sys.argv[3], "w"), open(sys.argv[4], "w")
start = (now // 60 + 1440) * 60   # a day ahead, whole minutes
for i in range(count):
    t = datetime.datetime.fromtimestamp(start + i * 52 * 60, datetime.timezone.utc)  # 52 min apart: ~a year
    title, body = "Reminder %d" % i, "Your lesson %d is waiting." % (i % 97)
    tsv.write("%s\t%s\t%s\n" % (t.strftime("%Y%m%d%H%M"), title, body))
    nd.write(json.dumps({"bk": {"local": {"id": "at_%d" % i, "title": title, "body": body,
                                          "at": t.strftime("%Y-%m-%dT%H:%MZ")}}}) + "\n")
EOF

per_process() {
    bench_start_daemon "$BENCH_DIR/proc.db" /dev/null "$BENCH_DIR/proc.err" --notifier none
    "$PY" - "${RUNS:-30}" "$BENCH_DIR" "$BUS_ADDR" "$SCHEDD" "${SCHEDD_BEFORE:-}" <<'EOF'
import datetime, os, random, statistics, subprocess, sys, time
runs, work, bus, schedd, before = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
start = (int(time.time()) // 60 + 2880) * 60    # two days ahead, whole minutes
serial = [0]
def next_minute():
    serial[0] += 1
    return serial[0], datetime.datetime.fromtimestamp(start + serial[0] * 60, datetime.timezone.utc)
def push(binary):
    n, t = next_minute()
    return ([binary, "push", "-", "--bus", bus],
            '{"bk":{"local":{"id":"proc_%d","title":"Reminder %d","body":"Your lesson is waiting.","at":"%s"}}}\n'
            % (n, n, t.strftime("%Y-%m-%dT%H:%MZ")))
def at():
    n, t = next_minute()
    return ["at", "-M", "-q", "s", "-t", t.strftime("%Y%m%d%H%M")], "notify-send 'Reminder %d' 'Your lesson is waiting.'\n" % n
commands = {"at": at, "schedd push": lambda: push(schedd), "schedd --version": lambda: ([schedd, "--version"], ""),
            "true": lambda: (["/bin/true"], "")}
if before:
    commands["before: schedd push"] = lambda: push(before)
    commands["before: schedd --version"] = lambda: ([before, "--version"], "")
wall = {n: [] for n in commands}
cpu = {n: [] for n in commands}
stdin_path = os.path.join(work, "proc.stdin")
rng = random.Random(20)
for r in range(runs + 3):            # the first 3 rounds warm the caches and are not counted
    order = list(commands)
    rng.shuffle(order)
    for name in order:
        argv, text = commands[name]()
        with open(stdin_path, "w") as f:
            f.write(text)
        with open(stdin_path) as f, open(os.devnull, "w") as null:
            t0 = time.monotonic()
            p = subprocess.Popen(argv, stdin=f, stdout=null, stderr=subprocess.STDOUT)
            _, status, ru = os.wait4(p.pid, 0)
            t1 = time.monotonic()
        p.returncode = 0
        if status != 0:
            sys.exit("%s failed: wait status %d" % (name, status))
        if r >= 3:
            wall[name].append((t1 - t0) * 1000)
            cpu[name].append((ru.ru_utime + ru.ru_stime) * 1000)
for name in commands:
    print("%-26s wall p50 %6.2f ms (min %6.2f)   cpu p50 %6.2f ms (min %6.2f)   %d runs" % (
        name, statistics.median(wall[name]), min(wall[name]), statistics.median(cpu[name]), min(cpu[name]), runs))
def result(n, ours, base):
    print("RESULT %s ours=%.2fms baseline=%.2fms ratio=%.3f" % (n, ours, base, base / ours))
result("cli_push_wall_vs_at", statistics.median(wall["schedd push"]), statistics.median(wall["at"]))
result("cli_push_cpu_vs_at", statistics.median(cpu["schedd push"]), statistics.median(cpu["at"]))
if before:
    result("cli_push_wall_vs_before", statistics.median(wall["schedd push"]), statistics.median(wall["before: schedd push"]))
    result("cli_push_cpu_vs_before", statistics.median(cpu["schedd push"]), statistics.median(cpu["before: schedd push"]))
    result("cli_version_cpu_vs_before", statistics.median(cpu["schedd --version"]), statistics.median(cpu["before: schedd --version"]))
EOF
    bench_stop_daemon
}
if [ "$count" = 0 ]; then per_process; exit 0; fi

at_s=$(timed bash -c '
while IFS=$'"'\t'"' read -r ts title body; do
    printf "notify-send %q %q\n" "$title" "$body" | at -M -q s -t "$ts" 2>/dev/null
done < "$1"' _ "$BENCH_DIR/at.tsv")
at_jobs=$(atq -q s | wc -l)
echo "at: $at_jobs jobs submitted in $at_s s ($(echo "scale=1; $count / $at_s" | bc)/s)"

bench_start_daemon "$BENCH_DIR/at.db" /dev/null "$BENCH_DIR/at.err" --notifier none
ours_s=$(timed bash -c '
while read -r line; do
    printf "%s" "$line" | "$1" push - --bus "$2"
done < "$3"' _ "$SCHEDD" "$BUS_ADDR" "$BENCH_DIR/at.ndjson")
ours_n=$(sqlite3 "$BENCH_DIR/at.db" 'SELECT count(*) FROM schedules')
echo "schedd push per notification: $ours_n pending after $ours_s s ($(echo "scale=1; $count / $ours_s" | bc)/s)"
bench_stop_daemon

bench_start_daemon "$BENCH_DIR/bulk.db" /dev/null "$BENCH_DIR/bulk.err" --notifier none
bulk_s=$(timed "$SCHEDD" push "$BENCH_DIR/at.ndjson" --bus "$BUS_ADDR")
bulk_n=$(sqlite3 "$BENCH_DIR/bulk.db" 'SELECT count(*) FROM schedules')
echo "schedd push NDJSON: $bulk_n pending after $bulk_s s ($(echo "scale=1; $count / $bulk_s" | bc)/s)"
result at_submit_per_call "$ours_s" "$at_s" s lower
result at_submit_bulk "$bulk_s" "$at_s" s lower
per_process
