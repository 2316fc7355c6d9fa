import Glibc
import SchedCalendar
import Scheduler

// `schedd-bench wheelprofile [N [ROUNDS [reserve]]]` (default 1,000,000, 1): the wheel benchmark's workload (TimerWorkload:
// keys 0..<N, dues uniform over a year, 10% cancelled at random, the rest expired a wake-up at a
// time), run once, each phase in its own function so that callgrind can count it alone:
//
//   valgrind --tool=callgrind --cache-sim=yes --toggle-collect='*wheelProfileInsert*' \
//            --toggle-collect='*wheelProfileCancel*' --toggle-collect='*wheelProfileExpire*' \
//            schedd-bench wheelprofile 1000000
//   callgrind_annotate --inclusive=yes callgrind.out.PID | grep wheelProfile
//
// Instructions and simulated cache misses are deterministic, unlike the wall or CPU time that
// `schedd-bench wheel` measures on a machine whose vCPUs have fast and slow spells: they compare two
// builds of the wheel exactly. They do not replace `wheel`'s times (a miss's cost is the CPU's).
// Outside callgrind, each phase also prints this thread's user and system CPU time and its minor page
// faults (getrusage RUSAGE_THREAD): memory touched for the first time is paid for in the kernel.

func wheelProfileBenchmark(_ args: [String]) {
    let n = args.first.flatMap { Int($0) } ?? 1_000_000
    let workload = TimerWorkload(count: n, seed: UInt64(n))
    var wheel = TimerWheel(now: Instant(microseconds: benchEpoch))
    var checksum: UInt64 = 0
    let rounds = args.count > 1 ? Int(args[1]) ?? 1 : 1
    // `reserve` as the third argument sizes the key table first, as the engine's restore does.
    let reserve = args.count > 2 && args[2] == "reserve"
    for round in 1...rounds {
    if round > 1 { wheel = TimerWheel(now: Instant(microseconds: benchEpoch)) }
    for (phase, ops, body) in [
        ("insert", n, {
            if reserve { wheel.reserveCapacity(n) }
            wheelProfileInsert(&wheel, workload)
        }),
        ("cancel 10%", workload.cancels.count, { wheelProfileCancel(&wheel, workload) }),
        ("expire", n - workload.cancels.count, { checksum = wheelProfileExpire(&wheel) }),
    ] as [(String, Int, () -> Void)] {
        let before = threadUsage()
        body()
        let after = threadUsage()
        let perOp = { (a: timeval, b: timeval) in
            Double((b.tv_sec - a.tv_sec) * 1_000_000 + (b.tv_usec - a.tv_usec)) * 1000 / Double(max(ops, 1))
        }
        print("wheelprofile \(n) \(phase): user \(format(perOp(before.ru_utime, after.ru_utime))) ns/op, system "
              + "\(format(perOp(before.ru_stime, after.ru_stime))) ns/op, \(after.ru_minflt - before.ru_minflt) minor faults")
    }
    }
    print("wheelprofile \(n): inserted \(n), cancelled \(workload.cancels.count), expired the rest; checksum \(checksum)")
}

private func threadUsage() -> rusage {
    var usage = rusage()
    getrusage(__rusage_who_t(1), &usage) // RUSAGE_THREAD, which Glibc does not export to Swift
    return usage
}

@inline(never) func wheelProfileInsert(_ wheel: inout TimerWheel, _ w: TimerWorkload) {
    for (k, due) in w.dues.enumerated() { wheel.insert(key: Int64(k), due: Instant(microseconds: due)) }
}

@inline(never) func wheelProfileCancel(_ wheel: inout TimerWheel, _ w: TimerWorkload) {
    for k in w.cancels { wheel.cancel(key: k) }
}

@inline(never) func wheelProfileExpire(_ wheel: inout TimerWheel) -> UInt64 {
    var sum: UInt64 = 0
    while let next = wheel.nextExpiry {
        wheel.advance(to: next) { key, _ in sum = sum &* 31 &+ UInt64(bitPattern: key) }
    }
    return sum
}
