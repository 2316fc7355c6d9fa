# Shared helpers for the load scripts in scripts/bench/ (sourced, not run). They drive the RELEASE
# daemon (`swift build -c release --static-swift-stdlib --scratch-path .build-release`, as installed) on a private dbus-daemon and print
# `RESULT name ours=… baseline=… ratio=…` lines like `schedd-bench` (ratio = baseline/ours for times,
# ours/baseline for rates).
#
# Python helpers run under /usr/bin/python3 (Debian's python3-dbus); pyenv's python3 lacks dbus.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SCHEDD="${SCHEDD:-$ROOT/.build-release/release/schedd}"
PY=/usr/bin/python3
BENCH_DIR=""
BUS_ADDR=""
BUS_PID=""
DAEMON_PID=""

# bench_build [PRODUCT…]: builds the release daemon, and each PRODUCT named (e.g. schedd-bench) in the same
# scratch path, unless SKIP_BUILD=1.
bench_build() {
    if [ "${SKIP_BUILD:-0}" != 1 ]; then
        local product
        for product in schedd "$@"; do
            (cd "$ROOT" && swift build -c release --static-swift-stdlib --scratch-path .build-release --product "$product" >&2)
        done
    fi
    [ -x "$SCHEDD" ] || { echo "no release schedd at $SCHEDD" >&2; exit 3; }
}

# A scratch directory (removed on exit unless KEEP=1) and a private bus.
bench_setup() {
    BENCH_DIR="$(mktemp -d /tmp/schedd-bench-XXXXXX)"
    # shellcheck source=../../Tests/Support/bus/private-bus.bash
    source "$ROOT/Tests/Support/bus/private-bus.bash"
    start_private_bus --config-file="$ROOT/Tests/Support/notify/bus.conf"
    BUS_ADDR="$BUS_ADDRESS"
    trap bench_cleanup EXIT
}

# Runs as the EXIT trap, where `set -e` still applies: every step must succeed or be excused.
bench_cleanup() {
    if [ -n "$DAEMON_PID" ]; then kill "$DAEMON_PID" 2>/dev/null || true; fi
    if [ -n "$BUS_PID" ]; then kill "$BUS_PID" 2>/dev/null || true; fi
    if [ "${KEEP:-0}" = 1 ]; then echo "kept $BENCH_DIR" >&2; else rm -rf "$BENCH_DIR"; fi
}

# Prints the machine the figures come from.
bench_machine() {
    echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
}

# bench_start_daemon DB STDOUT STDERR ARGS…: starts `schedd run` with its own NOTIFY_SOCKET, waits for
# READY=1, sets DAEMON_PID and READY_MS (milliseconds from spawn to READY=1). Call it directly, not in $(…).
bench_start_daemon() {
    local db="$1" out="$2" err="$3"; shift 3
    local answer
    answer="$("$PY" - "$BENCH_DIR/notify.sock" "$out" "$err" "$SCHEDD" run --bus "$BUS_ADDR" --db "$db" "$@" <<'EOF'
import os, socket, subprocess, sys, time
path, out, err, cmd = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
if os.path.exists(path): os.unlink(path)
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
s.settimeout(0.05)
env = dict(os.environ, NOTIFY_SOCKET=path)
t0 = time.monotonic()
p = subprocess.Popen(cmd, stdout=open(out, "ab"), stderr=open(err, "ab"), stdin=subprocess.DEVNULL, env=env,
                     start_new_session=True)
while True:
    try:
        msg = s.recv(4096).decode()
    except socket.timeout:
        if p.poll() is not None or time.monotonic() - t0 > 120:
            sys.exit(1)
        continue
    if "READY=1" in msg.split("\n"):
        break
print(p.pid, "%.1f" % ((time.monotonic() - t0) * 1000))
os._exit(0)
EOF
)" || { echo "daemon did not become ready; stderr:" >&2; tail -5 "$err" >&2; exit 3; }
    DAEMON_PID="${answer%% *}"
    READY_MS="${answer##* }"
}

# Stops the daemon (SIGTERM) and waits for it to exit.
bench_stop_daemon() {
    [ -n "$DAEMON_PID" ] || return 0
    kill "$DAEMON_PID" 2>/dev/null
    while kill -0 "$DAEMON_PID" 2>/dev/null; do sleep 0.05; done
    DAEMON_PID=""
}

# schedd CLI against the private bus.
sd() { "$SCHEDD" "$@" --bus "$BUS_ADDR"; }

# VmRSS of PID in kB.
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

# result NAME OURS BASELINE UNIT higher|lower
result() {
    awk -v n="$1" -v o="$2" -v b="$3" -v u="$4" -v h="$5" 'BEGIN {
        r = (h == "higher") ? o / b : b / o
        printf "RESULT %s ours=%s%s baseline=%s%s ratio=%.3f\n", n, o, u, b, u, r }'
}

# gen_pushes COUNT START_EPOCH SPAN_SECONDS MODE [PREFIX] > FILE: NDJSON pushes.
#   MODE oneshot: fixed `at` instants start + i*span/count (a small pseudo-random jitter), ids PREFIX_i.
#   MODE mixed:   like the million load: 80% one-shots over the span, 20% calendar expressions
#                 (daily/weekly/monthly at assorted times, some pinned to zones, some with cancelOn).
gen_pushes() {
    "$PY" - "$@" <<'EOF'
import datetime, json, random, sys
count, start, span, mode = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
prefix = sys.argv[5] if len(sys.argv) > 5 else "run"
rng = random.Random(0x5EED)
zones = ["", " UTC", " Europe/Berlin", " America/New_York", " Asia/Tokyo"]
days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
out = sys.stdout
def iso(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ").replace(".000000Z", "Z")
for i in range(count):
    local = {"id": "%s_%d:s%d" % (prefix, i // 10, i % 10), "title": "Reminder %d" % i,
             "body": "Your lesson %d is waiting. Keep your streak going!" % (i % 97),
             "data": {"deepLink": "app://lesson/%d" % (i % 97), "n": i}}
    if mode == "mixed" and i % 5 == 4:
        k = rng.randrange(4)
        hh, mm = rng.randrange(24), rng.randrange(60)
        if k == 0: spec = "*-*-* %02d:%02d:00" % (hh, mm)
        elif k == 1: spec = "%s *-*-* %02d:%02d" % (days[rng.randrange(7)], hh, mm)
        elif k == 2: spec = "*-*-%02d %02d:%02d" % (rng.randrange(1, 29), hh, mm)
        else: spec = "Mon..Fri %02d:%02d" % (hh, mm)
        local["calendar"] = spec + zones[rng.randrange(len(zones))]
        if i % 3 == 0: local["cancelOn"] = ["lesson_%d_done" % (i % 97)]
    else:
        t = start + span * i / count
        if mode == "mixed": t += rng.random() * span / count
        local["at"] = iso(t)
    out.write(json.dumps({"bk": {"local": local}}, separators=(",", ":")) + "\n")
EOF
}

# Percentiles of a file of numbers (one per line): prints "p50 p99 max count".
percentiles() {
    sort -g "$1" | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print "nan nan nan 0"; exit }
        p50 = v[int(NR * 0.50 + 0.999999)]; p99 = v[int(NR * 0.99 + 0.999999)]
        printf "%s %s %s %d\n", p50, p99, v[NR], NR }'
}

# timed CMD…: runs CMD (stdout to /dev/null) and prints its wall duration in seconds from
# CLOCK_MONOTONIC (other helpers on this machine may step the wall clock in their tests).
timed() {
    "$PY" -c '
import subprocess, sys, time
t = time.monotonic()
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
print("%.6f" % (time.monotonic() - t))
sys.exit(rc)' "$@"
}
