// `schedd-bench restore [COUNT]`: where a restart's time goes with COUNT (default 1,000,000) pending
// one-shots spread over a year, loaded with the engine's pushBatch directly into a fresh database (no
// daemon, no D-Bus). Then, in a fresh engine, the start-up parts are timed separately:
//   open   SQLiteScheduleStore(path:) — WAL, schema check (no integrity pass after a clean close);
//   read   store.schedules.forEachPendingDeadline — a covering scan of `schedules_by_app_next`, streamed;
//   wheel  inserting those into a TimerWheel sized from the count, as the engine does (and, for
//          comparison, into one that grows its key table by doubling);
//   engine the whole Engine(databasePath:…) init (all of the above plus zone bookkeeping).
// The RESULT compares the engine init with the daemon's start-to-READY target (3 s).
import Glibc
import SchedCalendar
import Scheduler
import SystemZones

func restoreBenchmark(_ args: [String]) {
    let count = args.first.flatMap { Int($0) } ?? 1_000_000
    var template = Array("/tmp/schedd-bench-restore-XXXXXX".utf8CString)
    guard let dirPointer = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        print("restore: cannot create a temporary directory"); return
    }
    let directory = String(cString: dirPointer)
    defer { _ = system("rm -rf '\(directory)'") }
    let path = directory + "/schedd.db"
    let now = Instant(seconds: 1_780_000_000)  // 2026-05-28T20:26:40Z
    print("restore: \(count) pending one-shots over a year, loaded with Engine.pushBatch (batches of 10,000) in \(directory)")

    do {
        let engine = try Engine(databasePath: path, notifier: NullNotifier(), deviceZone: .utc, zones: ZoneDatabase.shared, now: now)
        let loadNanos = measureNanos {
            var start = 0
            while start < count {
                let end = min(start + 10_000, count)
                _ = try? engine.pushBatch((start..<end).map { restorePush($0, count: count, now: now) }, now: now)
                start = end
            }
        }
        guard engine.pendingCount == count else { print("restore: only \(engine.pendingCount) pending"); return }
        engine.close()
        print("  load: \(format(Double(loadNanos) / 1e9)) s = \(format(Double(count) / (Double(loadNanos) / 1e9))) pushes/s")
    } catch {
        print("restore: \(error)"); return
    }

    do {
        var store: SQLiteScheduleStore?
        let openNanos = measureNanos { store = try? SQLiteScheduleStore(path: path) }
        guard let store else { print("restore: cannot open the store"); return }
        var deadlines: [(key: Int64, due: Instant)] = []
        deadlines.reserveCapacity(count)
        var read = 0
        let readNanos = measureNanos { try? store.schedules.forEachPendingDeadline { _, _ in read += 1 } }
        try? store.schedules.forEachPendingDeadline { deadlines.append(($0, $1)) }
        store.close()
        let before = residentBytes()
        var wheel = TimerWheel(now: now)
        let wheelNanos = measureNanos {
            wheel.reserveCapacity(count)  // as the engine does, from the kept count
            for entry in deadlines { wheel.insert(key: entry.key, due: entry.due) }
        }
        let wheelBytes = residentBytes() - before
        precondition(wheel.count == count)
        // The same stream into a wheel that is not told the count, and grows its key table by doubling.
        var growing = TimerWheel(now: now)
        let growingNanos = measureNanos { for entry in deadlines { growing.insert(key: entry.key, due: entry.due) } }
        precondition(growing.count == count)
        deadlines = []

        var engine: Engine?
        let engineNanos = measureNanos {
            engine = try? Engine(databasePath: path, notifier: NullNotifier(), deviceZone: .utc, zones: ZoneDatabase.shared, now: now)
        }
        guard let engine, engine.pendingCount == count else { print("restore: the engine did not restore"); return }
        engine.close()
        let ms = { (n: UInt64) in format(Double(n) / 1e6) }
        print("  open (schema check):         \(ms(openNanos)) ms")
        print("  stream pending deadlines:    \(ms(readNanos)) ms (\(read) rows)")
        print("  wheel inserts:               \(ms(wheelNanos)) ms (resident growth \(wheelBytes / 1024) KiB; "
              + "key table sized from the count; grown by doubling instead: \(ms(growingNanos)) ms)")
        print("  Engine init, all of it:      \(ms(engineNanos)) ms")
        printResult("restore_engine_init", ours: Double(engineNanos) / 1e6, baseline: 3000, unit: "ms")
    }
}

/// Push `i` of `count`: a fixed one-shot, the dues spread evenly over the year after `now` + 1 day.
private func restorePush(_ i: Int, count: Int, now: Instant) -> Push {
    benchmarkPush(i, due: now.adding(seconds: 86_400 + Int64(i) * (365 * 86_400) / Int64(max(1, count))))
}
