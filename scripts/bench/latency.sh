#!/usr/bin/env bash
# Due instant → delivery latency on the REAL clock: COUNT (default 40) one-shots due at distinct
# instants GAP_MS apart (default 300 ms, plus 0–99 ms jitter), the first 5 s after the push.
#   desktop: `--notifier desktop` talking to Tests/Support/notify/recording_server.py on the private bus
#            (DBUS_SESSION_BUS_ADDRESS = that bus); latency = the server's receive time ("t") − due.
#   stdout:  the stdout notifier through a pipe to a reader stamping each line when read;
#            latency = read time − due (an upper bound of the write time − due).
# MODE auto (default) uses desktop when `schedd run` accepts it, else stdout.
# Usage: scripts/bench/latency.sh [auto|desktop|stdout] [COUNT] [GAP_MS]
set -euo pipefail
source "$(dirname "$0")/common.sh"
mode="${1:-auto}"
count="${2:-40}"
gap="${3:-300}"
bench_build
bench_setup
bench_machine
if [ "$mode" = auto ]; then
    probe="$("$SCHEDD" run --notifier desktop --bus unix:path=/nonexistent --db "$BENCH_DIR/probe.db" 2>&1 || true)"
    if grep -q "not available\|needs one of" <<< "$probe"; then mode=stdout; else mode=desktop; fi
fi
echo "mode: $mode"

"$PY" - "$count" "$gap" "$(date +%s.%N)" > "$BENCH_DIR/lat.ndjson" <<'EOF'
import datetime, json, random, sys
count, gap, now = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
rng = random.Random(40)
first = now + 5
for i in range(count):
    t = first + i * gap / 1000 + rng.randrange(100) / 1000
    at = datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    print(json.dumps({"bk": {"local": {"id": "lat_%d" % i, "title": "lat %d" % i, "body": "due " + at, "at": at}}}))
EOF
last_due=$("$PY" -c 'import json,sys,datetime; print(max(datetime.datetime.fromisoformat(json.loads(l)["bk"]["local"]["at"].replace("Z","+00:00")).timestamp() for l in open(sys.argv[1])))' "$BENCH_DIR/lat.ndjson")

if [ "$mode" = desktop ]; then
    DBUS_SESSION_BUS_ADDRESS="$BUS_ADDR" "$PY" "$ROOT/Tests/Support/notify/recording_server.py" \
        --log "$BENCH_DIR/calls.jsonl" --address "$BUS_ADDR" > "$BENCH_DIR/server.out" 2>&1 &
    server=$!
    trap 'kill "$server" 2>/dev/null || true; bench_cleanup' EXIT
    for _ in $(seq 100); do grep -q '"ready"' "$BENCH_DIR/calls.jsonl" 2>/dev/null && break; sleep 0.05; done
    DBUS_SESSION_BUS_ADDRESS="$BUS_ADDR" bench_start_daemon "$BENCH_DIR/lat.db" "$BENCH_DIR/lat.out" \
        "$BENCH_DIR/lat.err" --notifier desktop --notify-bus "$BUS_ADDR"
else
    mkfifo "$BENCH_DIR/out.fifo"
    "$PY" -c '
import sys, time
out = open(sys.argv[2], "w")
with open(sys.argv[1], "rb") as f:
    for line in f:
        out.write("%.6f\t%s" % (time.time(), line.decode())); out.flush()
' "$BENCH_DIR/out.fifo" "$BENCH_DIR/lat.stamped" &
    stamper=$!
    bench_start_daemon "$BENCH_DIR/lat.db" "$BENCH_DIR/out.fifo" "$BENCH_DIR/lat.err" --notifier stdout
fi
sd push "$BENCH_DIR/lat.ndjson" > /dev/null
"$PY" -c 'import sys,time; time.sleep(max(0, float(sys.argv[1]) + 1 - time.time()))' "$last_due"
bench_stop_daemon
if [ "$mode" = desktop ]; then kill "$server"; wait "$server" 2>/dev/null || true; src="$BENCH_DIR/calls.jsonl"
else wait "$stamper"; src="$BENCH_DIR/lat.stamped"; fi

"$PY" - "$mode" "$src" "$BENCH_DIR/lat.ndjson" "$count" <<'EOF'
import datetime, json, sys
mode, src, pushes, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def t(s): return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()
due = {}
for l in open(pushes):
    local = json.loads(l)["bk"]["local"]; due[local["title"]] = t(local["at"])
lat = []
for line in open(src):
    if mode == "desktop":
        c = json.loads(line)
        if c.get("method") != "Notify": continue
        lat.append((c["t"] - due[c["args"]["summary"]]) * 1000)
    else:
        stamp, _, text = line.partition("\t")
        lat.append((float(stamp) - due[json.loads(text)["title"]]) * 1000)
lat.sort()
q = lambda p: lat[min(len(lat) - 1, int(len(lat) * p))]
print("delivered %d of %d; latency ms: min %.3f p50 %.3f p99 %.3f max %.3f" % (len(lat), count, lat[0], q(0.5), q(0.99), lat[-1]))
print("RESULT due_to_%s_latency_p99 ours=%.3fms baseline=10ms ratio=%.3f p50=%.3fms n=%d" %
      ("notify" if mode == "desktop" else "stdout_line", q(0.99), 10 / q(0.99), q(0.5), len(lat)))
EOF
