#!/usr/bin/env bash
# Builds and runs the libFuzzer harnesses in Tests/Fuzz (docs/fuzzing.md).
#
#   scripts/fuzz.sh [push|calendar|tzif|dispatch|all] [SECONDS]     (defaults: all, 60 s per harness)
#
# Each harness is linked from instrumented module objects (SchedCalendar, ScheddSystem, SystemZones, ScheddCrypto,
# Scheduler, ScheddProtocol, ScheddService) built with
# `swiftc -sanitize=fuzzer,address`, then run for SECONDS with the seed corpus in
# Tests/Fuzz/corpus/<name> (read only) and a scratch corpus that collects new inputs (never in the
# repository). Exits non-zero if any run finds a crash, hang (> 5 s per input), leak or OOM, and
# prints the reproducer's path and the command that replays it.
#
# Environment: FUZZ_WORK (scratch dir; default a fresh `mktemp -d` directory, removed at exit unless a
# run found something — then it is kept and named — while a FUZZ_WORK you give is kept, so later runs
# continue from its corpus), FUZZ_BUILD (objects and binaries, default .build-fuzz), FUZZ_RSS_MB
# (default 2048), FUZZ_ARGS (extra libFuzzer flags), FUZZ_JOBS (harnesses run at once; default one per core).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TARGET=${1:-all}
SECONDS_PER=${2:-60}
if [[ -n "${FUZZ_WORK:-}" ]]; then
    WORK=$FUZZ_WORK KEEP_WORK=1
else
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/schedd-fuzz-XXXXXX") KEEP_WORK=0
fi
# A scratch directory of our own goes at exit (also on ^C or a failed build); one with a reproducer
# or a failed run's log stays, and is named.
cleanup() {
    [[ $KEEP_WORK -eq 0 && -d "$WORK" ]] || return 0
    if [[ ${status:-0} -eq 0 ]]; then rm -rf "$WORK"; else echo "fuzz: kept $WORK (reproducers and logs)"; fi
}
trap cleanup EXIT
BUILD=${FUZZ_BUILD:-$ROOT/.build-fuzz}
RSS_MB=${FUZZ_RSS_MB:-2048}

case "$TARGET" in
    push|calendar|tzif|dispatch) TARGETS=("$TARGET") ;;
    all) TARGETS=(push calendar tzif dispatch) ;;
    *) echo "usage: $0 [push|calendar|tzif|dispatch|all] [SECONDS]" >&2; exit 2 ;;
esac
[[ "$SECONDS_PER" =~ ^[0-9]+$ ]] || { echo "SECONDS must be a whole number" >&2; exit 2; }

SWIFTC=(swiftc -sanitize=fuzzer,address -parse-as-library -O -use-ld=lld)
mkdir -p "$BUILD"

# Rebuilds $BUILD/<module>.o when it is missing or older than one of its sources or of the
# module objects it imports (DEPS, space-separated).
build_module() {
    local module=$1 dir=$2 deps=$3; shift 3
    local obj="$BUILD/$module.o" stale=0 dep
    [[ -f "$obj" ]] || stale=1
    [[ $stale -eq 1 || -z "$(find "$dir" -name '*.swift' -newer "$obj" | head -1)" ]] || stale=1
    for dep in $deps; do [[ $stale -eq 1 || ! "$BUILD/$dep.o" -nt "$obj" ]] || stale=1; done
    [[ $stale -eq 1 ]] || return 0
    echo "fuzz: building $module (instrumented)"
    "${SWIFTC[@]}" -wmo -module-name "$module" -I "$BUILD" "$@" -emit-module \
        -emit-module-path "$BUILD/$module.swiftmodule" -c "$dir"/*.swift -o "$obj"
}

# Links the harness for one target against the modules it needs.
build_harness() {
    local name=$1 source objects=()
    case "$name" in
        push) source=FuzzPush.swift
              objects=("$BUILD/SchedCalendar.o" "$BUILD/ScheddSystem.o" "$BUILD/SystemZones.o" "$BUILD/ScheddCrypto.o"
                       "$BUILD/Scheduler.o") ;;
        calendar) source=FuzzCalendar.swift; objects=("$BUILD/SchedCalendar.o" "$BUILD/ScheddSystem.o" "$BUILD/SystemZones.o") ;;
        tzif) source=FuzzTZif.swift; objects=("$BUILD/SchedCalendar.o") ;;
        dispatch) source=FuzzDispatch.swift
                  objects=("$BUILD/SchedCalendar.o" "$BUILD/ScheddSystem.o" "$BUILD/SystemZones.o" "$BUILD/ScheddCrypto.o"
                           "$BUILD/Scheduler.o" "$BUILD/ScheddProtocol.o" "$BUILD/ScheddService.o") ;;
    esac
    local bin="$BUILD/fuzz-$name" newest
    newest=$(ls -t "Tests/Fuzz/$source" "${objects[@]}" "$bin" 2>/dev/null | head -1 || true)
    if [[ -x "$bin" && "$newest" == "$bin" ]]; then return 0; fi
    echo "fuzz: linking fuzz-$name"
    "${SWIFTC[@]}" -I "$BUILD" -I Sources/CSQLite -I Sources/CCrypto -I Sources/CLinuxProcess "Tests/Fuzz/$source" \
        "${objects[@]}" -o "$bin"
}

build_module SchedCalendar Sources/Calendar ""
build_module ScheddSystem Sources/ScheddSystem "" -I Sources/CLinuxProcess
build_module SystemZones Sources/SystemZones "SchedCalendar ScheddSystem" -I Sources/CLinuxProcess
if [[ " ${TARGETS[*]} " == *" push "* || " ${TARGETS[*]} " == *" dispatch "* ]]; then
    build_module ScheddCrypto Sources/ScheddCrypto "" -I Sources/CCrypto
    build_module Scheduler Sources/Scheduler "SchedCalendar ScheddCrypto ScheddSystem" -I Sources/CSQLite -I Sources/CCrypto \
        -I Sources/CLinuxProcess
fi
if [[ " ${TARGETS[*]} " == *" dispatch "* ]]; then
    build_module ScheddProtocol Sources/ScheddProtocol ""
    build_module ScheddService Sources/ScheddService "SchedCalendar Scheduler ScheddSystem ScheddProtocol" -I Sources/CSQLite \
        -I Sources/CCrypto -I Sources/CLinuxProcess
fi
for t in "${TARGETS[@]}"; do build_harness "$t"; done

# Runs one harness for SECONDS_PER seconds; its exit status goes to $WORK/<t>/rc.
run_harness() {
    local t=$1
    local corpus="$WORK/$t/corpus"
    local artifacts="$WORK/$t/artifacts"
    local log="$WORK/$t/fuzz.log"
    mkdir -p "$corpus" "$artifacts"
    rm -f "$artifacts"/crash-* "$artifacts"/timeout-* "$artifacts"/leak-* "$artifacts"/oom-* "$artifacts"/slow-unit-*
    # SWIFT_BACKTRACE=enable=no: otherwise Swift's backtracer takes the trap and no crash file is written.
    set +e
    # shellcheck disable=SC2086
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
        "$BUILD/fuzz-$t" -max_total_time="$SECONDS_PER" -timeout=5 -rss_limit_mb="$RSS_MB" \
        -use_value_profile=1 -dict="Tests/Fuzz/$t.dict" -artifact_prefix="$artifacts/" \
        -print_final_stats=1 ${FUZZ_ARGS:-} "$corpus" "Tests/Fuzz/corpus/$t" >"$log" 2>&1
    echo $? >"$WORK/$t/rc"
    set -e
}

# Reports one finished harness; sets status=1 when it failed or left a reproducer.
report_harness() {
    local t=$1 artifacts="$WORK/$t/artifacts" log="$WORK/$t/fuzz.log" rc
    rc=$(cat "$WORK/$t/rc")
    local done_line runs rate last secs found
    done_line=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)
    [[ -n "$done_line" ]] || done_line=$(grep -E '^#[0-9]+[[:space:]]' "$log" | tail -1 || true)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    if [[ -z "$runs" ]]; then  # -fork mode prints no final stats: "#RUNS: cov: … time: Ns …"
        last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -1 || true)
        runs=$(sed -n 's/^#\([0-9]*\):.*/\1/p' <<<"$last")
        secs=$(sed -n 's/.* time: \([0-9]*\)s.*/\1/p' <<<"$last")
        [[ -n "$runs" && -n "$secs" && "$secs" -gt 0 ]] && rate=$((runs / secs))
        done_line=$last
    fi
    echo "fuzz: $t rc=$rc runs=${runs:-?} exec/s=${rate:-?} ${done_line}"
    found=$(find "$artifacts" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'leak-*' -o -name 'oom-*' \) | sort)
    if [[ $rc -ne 0 || -n "$found" ]]; then
        status=1
        grep -E 'Fatal error|ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|SUMMARY' "$log" | head -5 || true
        for f in $found; do
            echo "fuzz: $t FOUND $f"
            echo "fuzz:   replay: SWIFT_BACKTRACE=enable=no $BUILD/fuzz-$t $f"
        done
        [[ -n "$found" ]] || echo "fuzz: $t exited $rc without a reproducer; see $log"
    fi
}

# The harnesses run side by side, FUZZ_JOBS at a time (default: one per core), each for the full
# SECONDS_PER of its own: the same fuzzing per harness in less wall time.
JOBS=${FUZZ_JOBS:-$(nproc)}
[[ "$JOBS" =~ ^[1-9][0-9]*$ ]] || { echo "FUZZ_JOBS must be a positive whole number" >&2; exit 2; }
status=0
for ((i = 0; i < ${#TARGETS[@]}; i += JOBS)); do
    batch=("${TARGETS[@]:i:JOBS}")
    for t in "${batch[@]}"; do
        mkdir -p "$WORK/$t"
        echo "fuzz: $t for ${SECONDS_PER}s (scratch corpus $WORK/$t/corpus, log $WORK/$t/fuzz.log)"
        run_harness "$t" &
    done
    wait
    for t in "${batch[@]}"; do report_harness "$t"; done
done
exit $status
