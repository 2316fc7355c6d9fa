#!/usr/bin/env bash
# One UnifiedPush delivery: the test distributor's Connector2.Message to schedd → decrypt (RFC 8291)
# → push applied and committed (durable) → reply, COUNT times (default 100) with distinct pushes;
# the distributor measures each from sending Message to receiving the reply (CLOCK_MONOTONIC).
#   baseline: the same plaintext pushes sent by a D-Bus client straight to schedd's own Push method
#             (one call each, measured the same way: call → reply), i.e. the push without the
#             connector (no a{sv}, no registration lookup, no decryption).
# Prints p50/p99/max of both and `RESULT unifiedpush_delivery_p50 ours=… baseline=… ratio=…`
# (ratio = baseline/ours: below 1 is the connector's cost).
# Usage: scripts/bench/unifiedpush.sh [COUNT]
set -euo pipefail
source "$(dirname "$0")/common.sh"
count="${1:-100}"
bench_build
bench_setup
bench_machine
"$PY" "$ROOT/Tests/Support/unifiedpush/test_distributor.py" --address "$BUS_ADDR" --log "$BENCH_DIR/dist.jsonl" \
    > "$BENCH_DIR/dist.out" 2>&1 &
dist=$!
trap 'kill "$dist" 2>/dev/null || true; bench_cleanup' EXIT
for _ in $(seq 200); do grep -q '"ready"' "$BENCH_DIR/dist.jsonl" 2>/dev/null && break; sleep 0.05; done
bench_start_daemon "$BENCH_DIR/up.db" /dev/null "$BENCH_DIR/up.err" --notifier none --fake-clock 2026-03-01T10:00:00Z

"$PY" - "$BUS_ADDR" "$count" "$BENCH_DIR" <<'EOF'
import json, sys, time
import dbus
address, count, directory = sys.argv[1], int(sys.argv[2]), sys.argv[3]
bus = dbus.bus.BusConnection(address)
up = dbus.Interface(bus.get_object("org.schedd.Scheduler1", "/org/schedd/Scheduler1"), "org.schedd.UnifiedPush1")
reg = json.loads(up.Register("org.example.Bench", "bench"))
assert reg["endpoint"], reg
control = dbus.Interface(bus.get_object("org.unifiedpush.Distributor.test", "/org/schedd/test/Distributor"),
                         "org.schedd.test.DistributorControl")
scheduler = dbus.Interface(bus.get_object("org.schedd.Scheduler1", "/org/schedd/Scheduler1"), "org.schedd.Scheduler1")
def push(kind, i):
    return json.dumps({"bk": {"local": {"id": "%s_%d:a" % (kind, i), "title": "Reminder %d" % i,
                                        "body": "Your lesson is waiting", "at": "2026-03-02T09:%02d:00Z" % (i % 60)}}})
ours, base = [], []
for i in range(count):
    # Interleaved, so both see the same load.
    answer = json.loads(control.Send(reg["endpoint"], push("up", i), reg["p256dh"], reg["auth"], "m%d" % i, timeout=30))
    assert answer["error"] is None and answer["reply"] == {"id": "m%d" % i}, answer
    ours.append(answer["elapsed_ns"] / 1e6)
    t = time.monotonic_ns()
    outcome = json.loads(scheduler.Push(push("direct", i), timeout=30))
    base.append((time.monotonic_ns() - t) / 1e6)
    assert outcome[0]["status"] == "scheduled", outcome
pending = json.loads(scheduler.List(0, 0))
assert len(pending) == 2 * count, len(pending)
def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, max(0, int(len(values) * p + 0.999999) - 1))]
for name, values in (("unifiedpush Message→durable→reply", ours), ("Push method (baseline)", base)):
    print("%s: p50 %.3f ms  p99 %.3f ms  max %.3f ms  (n=%d)" % (name, pct(values, 0.5), pct(values, 0.99), max(values), len(values)))
o, b = pct(ours, 0.5), pct(base, 0.5)
print("RESULT unifiedpush_delivery_p50 ours=%.3fms baseline=%.3fms ratio=%.3f" % (o, b, b / o))
EOF
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
