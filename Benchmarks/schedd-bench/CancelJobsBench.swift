// `schedd-bench canceljobs [ROUNDS]`: what another app's cancellation jobs cost an app's firings, in time.
// App A stores `Engine.maxCancelJobsPerApp` runs of 300 schedules (due in a day) and, on one of two stores
// loaded alike, cancels every run (each leaves a sliced cancellation job under way); app B stores 1,000
// one-shots due in a minute. B's 1,000 firings (one `advance`) are timed on both stores, ROUNDS times
// interleaved, best of each. Prints the times and `RESULT canceljobs_firings ours=<with jobs>
// baseline=<alone> ratio=<alone/with>` (1 is the target: jobs of A cost B nothing). Not asserted anywhere:
// the test (EngineCancelJobsPerAppTests.testAnotherAppsFirings_doTheSameWorkWithTheJobs) checks the work
// counted, which a loaded machine does not change.
import Glibc
import SchedCalendar
import Scheduler
import SystemZones

func cancelJobsBenchmark(_ args: [String]) {
    let rounds = args.first.flatMap { Int($0) } ?? 5
    let t0 = Instant(seconds: 1_780_000_000)
    let a = "org.example.Flood", b = "org.example.Other"
    func local(_ id: String, _ due: Instant) -> Push {
        Push(local: LocalSchedule(id: id, trigger: .at(.fixed(due, offsetSeconds: 0)), title: "T", fingerprint: "\(id)|\(due)"))
    }
    var alone: [Double] = [], withJobs: [Double] = []
    do {
        for round in 0..<rounds {
            for jobs in [false, true] {
                var template = Array("/tmp/schedd-bench-canceljobs-XXXXXX".utf8CString)
                guard let dirPointer = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
                    print("canceljobs: cannot create a temporary directory"); return
                }
                let directory = String(cString: dirPointer)
                defer { _ = system("rm -rf '\(directory)'") }
                let engine = try Engine(databasePath: directory + "/s.db", notifier: NullNotifier(), deviceZone: .utc,
                                        zones: ZoneDatabase.shared, now: t0)
                defer { engine.close() }
                for r in 0..<Engine.maxCancelJobsPerApp {
                    _ = try engine.pushBatch((0..<300).map { local("r\(r):\($0)", t0.adding(seconds: 86_400 + Int64($0))) },
                                             app: a, now: t0)
                }
                _ = try engine.pushBatch((0..<1_000).map { local("b\(round):\($0)", t0.adding(seconds: 60)) }, app: b, now: t0)
                if jobs {
                    for r in 0..<Engine.maxCancelJobsPerApp { _ = try engine.cancelReporting(run: "r\(r)", app: a, now: t0) }
                }
                var fired = 0
                let nanos = try measureNanosThrowing { fired = try engine.advance(to: t0.adding(seconds: 120), mode: .timePassing).count }
                guard fired == 1_000 else { print("canceljobs: \(fired) of 1,000 fired"); return }
                if jobs { withJobs.append(Double(nanos) / 1e9) } else { alone.append(Double(nanos) / 1e9) }
            }
        }
    } catch {
        print("canceljobs: \(error)"); return
    }
    guard let best = alone.min(), let bestWith = withJobs.min() else { return }
    print("canceljobs: B's 1,000 firings, best of \(rounds): alone \(format(best)) s, with A's "
        + "\(Engine.maxCancelJobsPerApp) jobs \(format(bestWith)) s")
    printResult("canceljobs_firings", ours: bestWith, baseline: best, unit: "s")
}

/// `measureNanos` for a body that throws.
func measureNanosThrowing(_ body: () throws -> Void) rethrows -> UInt64 {
    let start = monotonicNanos()
    try body()
    return monotonicNanos() - start
}
