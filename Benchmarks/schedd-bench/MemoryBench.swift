import SeededRandomness
import SchedCalendar
import Scheduler

// `schedd-bench memory [n]`: memory per pending schedule held by the engine's in-memory index.
//
// The engine keeps only the TimerWheel in memory (key + due per schedule); titles, bodies and
// everything else stay in SQLite, whose page cache is excluded by the target. So this inserts n
// (default 1M) timers with rowid keys and dues spread over a year, and reports
//   - the resident-set growth of the process (/proc/self/statm) per timer, which includes malloc
//     overhead and the slack of arrays grown by doubling, and
//   - the wheel's own count of allocated bytes (array capacities) per timer.
// The RESULT compares the resident figure with the 100-byte target (ratio = target / ours, so
// ≥ 1 meets it).

func memoryBenchmark(_ args: [String]) {
    let n = args.first.flatMap { Int($0) } ?? 1_000_000
    var rng = SplitMix64(seed: 0x5EED)
    let before = residentBytes()
    var wheel = TimerWheel(now: Instant(microseconds: benchEpoch))
    for key in 0..<n {
        wheel.insert(key: Int64(key), due: Instant(microseconds: benchEpoch + Int64(rng.below(Int(benchYear)))))
    }
    let after = residentBytes()
    precondition(wheel.count == n)
    let resident = Double(after - before) / Double(n)
    let allocated = Double(wheel.allocatedBytes) / Double(n)
    print("memory: \(n) pending timers in the TimerWheel (keys = rowids, dues over a year)")
    print("  resident growth  \(after - before) bytes = \(format(resident)) bytes/timer")
    print("  allocated        \(wheel.allocatedBytes) bytes = \(format(allocated)) bytes/timer "
          + "(24-byte slot entry + 1 bit per handle + 16-byte key-table buckets at load "
          + "\(format(Double(n) / Double(wheel.tableBuckets))); slot-array slack is mostly not resident)")
    // Churn: cancel half and insert as many new keys; the free list must absorb it.
    for key in stride(from: 0, to: n, by: 2) { wheel.cancel(key: Int64(key)) }
    for key in stride(from: 0, to: n, by: 2) {
        wheel.insert(key: Int64(n + key), due: Instant(microseconds: benchEpoch + Int64(rng.below(Int(benchYear)))))
    }
    let churned = residentBytes()
    print("  after cancelling half and inserting as many: \(format(Double(churned - before) / Double(wheel.count))) "
          + "bytes/timer resident, \(format(Double(wheel.allocatedBytes) / Double(wheel.count))) allocated")
    printResult("memory_per_pending_schedule", ours: resident, baseline: 100, unit: "B")
}
