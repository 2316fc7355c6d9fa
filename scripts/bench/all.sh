#!/usr/bin/env bash
# Every figure in BENCHMARKS.md, one after another (about 30 minutes on 2 cores): builds the release
# binaries once, then runs the schedd-bench subcommands and the load scripts. Each prints RESULT lines.
# Usage: scripts/bench/all.sh 2>&1 | tee bench.log
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
(cd "$root" && swift build -c release --static-swift-stdlib --scratch-path .build-release >&2)
export SKIP_BUILD=1
for b in calendar wheel store memory restore; do
    echo "== schedd-bench $b (load $(cut -d' ' -f1-3 /proc/loadavg))"
    "$root/.build-release/release/schedd-bench" "$b"
done
for s in "million.sh" "burst.sh both" "burst.sh real 100000 1" "pushrate.sh" "atcompare.sh" "idle.sh" "latency.sh"; do
    echo "== scripts/bench/$s"
    # shellcheck disable=SC2086
    "$here"/$s
done
