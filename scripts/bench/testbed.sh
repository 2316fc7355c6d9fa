#!/usr/bin/env bash
# How long a test suite waits for schedd (issue 13): one `schedd testbed -- true` as a whole process
# (bus + daemon + READY + COMMAND + teardown), p50 of RUNS, against the baseline an app developer had
# before it — the README's hand-made recipe (a dbus-daemon, schedd run, poll `schedd clock show`
# until it answers, kill both) — in the same run; the recipe's bus is `dbus-daemon --nofork`, this
# shell's child (Tests/Support/bus/private-bus.bash), stopped by PID when its subshell exits, even
# on failure, so no bus outlives the script (docs/testing.md); and one pytest test of a full push → advance →
# assert cycle (fixture start and stop included), in-process p50 of RUNS and as a whole pytest run.
# Usage: scripts/bench/testbed.sh [RUNS=20]      (SKIP_BUILD=1 to use the built release binary)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=common.sh
source "$here/common.sh"
# shellcheck source=../../Tests/Support/bus/private-bus.bash
source "$here/../../Tests/Support/bus/private-bus.bash"
RUNS="${1:-20}"
bench_build
bench_machine
work="$(mktemp -d /tmp/schedd-bench-testbed-XXXXXX)"
trap 'rm -rf "$work"' EXIT
now_ns() { date +%s%N; }
p50() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# Ours: the whole testbed process.
for _ in $(seq "$RUNS"); do
    t0=$(now_ns); "$SCHEDD" testbed --fake-clock 2026-01-01T00:00:00Z -- true; t1=$(now_ns)
    echo $(( (t1 - t0) / 1000 ))
done > "$work/ours"

# Baseline: the recipe by hand (as the README had it before `schedd testbed`).
for _ in $(seq "$RUNS"); do
    t0=$(now_ns)
    (
        d=$(mktemp -d "$work/run-XXXXXX")
        daemon=""
        trap 'if [ -n "$daemon" ]; then kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; fi; stop_private_bus' EXIT
        start_private_bus --config-file="$ROOT/Tests/Support/bus/test-bus.conf"
        address="$BUS_ADDRESS"
        "$SCHEDD" run --bus "$address" --db "$d/db" --notifier stdout --fake-clock 2026-01-01T00:00:00Z \
            >"$d/shown" 2>"$d/log" &
        daemon=$!
        n=0
        until "$SCHEDD" clock show --bus "$address" >/dev/null 2>&1; do
            n=$((n + 1)); [ "$n" -lt 400 ] || { echo "baseline daemon never answered: $(cat "$d/log")" >&2; exit 1; }
            sleep 0.05
        done
        true
        kill "$daemon"; wait "$daemon" 2>/dev/null || true
        daemon=""
        stop_private_bus
        rm -rf "$d"
    )
    t1=$(now_ns)
    echo $(( (t1 - t0) / 1000 ))
done > "$work/baseline"
ours=$(p50 < "$work/ours"); base=$(p50 < "$work/baseline")
awk -v o="$ours" -v b="$base" -v n="$RUNS" 'BEGIN {
    printf "RESULT testbed_start_whole_process_p50_of_%d ours=%.1fms baseline=%.1fms ratio=%.2f\n", n, o/1000, b/1000, b/o }'

# One pytest test of a full cycle: the package installed from clients/python in a fresh venv.
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install --quiet --no-deps --no-build-isolation --no-index "$ROOT/clients/python"
"$work/venv/bin/python" - "$SCHEDD" "$RUNS" <<'EOF'
import statistics, sys, time
from schedd import Testbed
binary, runs = sys.argv[1], int(sys.argv[2])
times = []
for _ in range(runs):
    t0 = time.perf_counter()
    with Testbed(fake_clock="2026-12-24T08:00:00Z", tz="Europe/Berlin", binary=binary) as tb:
        tb.schedule("run_1:dinner", "Dinner", at="2026-12-24T18:00")
        tb.advance("10h")
        assert [n.id for n in tb.shown()] == ["run_1:dinner"]
        assert tb.history()[-1].event == "fired"
    times.append((time.perf_counter() - t0) * 1000)
print("RESULT pytest_cycle_in_process_p50_of_%d ours=%.1fms (testbed start, push, advance, assert, stop)"
      % (runs, statistics.median(times)))
EOF
cat > "$work/test_cycle.py" <<'EOF'
import pytest

@pytest.mark.schedd(fake_clock="2026-12-24T08:00:00Z", tz="Europe/Berlin")
def test_cycle(schedd_testbed):
    schedd_testbed.schedule("run_1:dinner", "Dinner", at="2026-12-24T18:00")
    schedd_testbed.advance("10h")
    assert [n.id for n in schedd_testbed.shown()] == ["run_1:dinner"]
EOF
for _ in 1 2 3 4 5; do
    t0=$(now_ns)
    (cd "$work" && "$work/venv/bin/python" -m pytest -q -p no:cacheprovider --schedd-binary "$SCHEDD" test_cycle.py >/dev/null)
    t1=$(now_ns); echo $(( (t1 - t0) / 1000 ))
done > "$work/pytest"
awk -v o="$(p50 < "$work/pytest")" 'BEGIN { printf "RESULT pytest_one_test_whole_process_p50_of_5 ours=%.1fms (interpreter and pytest start included)\n", o/1000 }'
