#!/usr/bin/env bash
# Every figure in BENCHMARKS.md, one after another (about 30 minutes on 2 cores): builds the release
# binaries once, then runs the schedd-bench subcommands and the load scripts. Each prints RESULT lines.
# Usage: scripts/bench/all.sh 2>&1 | tee bench.log
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# The daemon as installed (static Swift runtime); schedd-bench with the shared runtime in its own scratch
# path (the toolchain's static Foundation, which the Foundation baselines use, warns at link time).
(cd "$root" && swift build -c release --static-swift-stdlib --scratch-path .build-release --product schedd >&2)
(cd "$root" && swift build -c release --scratch-path .build-bench --product schedd-bench >&2)
export SKIP_BUILD=1
for b in calendar wheel store memory restore; do
    echo "== schedd-bench $b (load $(cut -d' ' -f1-3 /proc/loadavg))"
    "$root/.build-bench/release/schedd-bench" "$b"
done
for s in "million.sh" "burst.sh both" "burst.sh real 100000 1" "pushrate.sh" "atcompare.sh" "idle.sh" "latency.sh" "unifiedpush.sh" "testbed.sh"; do
    echo "== scripts/bench/$s"
    # shellcheck disable=SC2086
    "$here"/$s
done
