import SeededRandomness
import SchedCalendar
import XCTest
@testable import Scheduler

/// Seeded random operation sequences: a daemon restarted between operations behaves exactly like one that
/// never restarts (same answers, notifications and history), and displays match `fired` records one to one.
final class EngineRestartPropertyTests: XCTestCase {
    enum Operation {
        case push(Push)
        case cancelID(String)
        case cancelRun(String)
        case track(String)
        case advance(Int64, AdvanceMode)
        case retry
    }

    static func operations(seed: UInt64, count: Int, start: Instant) -> [(Operation, Instant)] {
        var rng = SplitMix64(seed: seed)
        var now = start
        var ops: [(Operation, Instant)] = []
        for _ in 0..<count {
            let id = "run_\(rng.int(1...3)):s\(rng.int(0...6))"
            switch rng.int(0...9) {
            case 0...3:
                let trigger: Trigger = rng.int(0...4) == 0
                    ? .calendar(["*:0/20", "*-*-* *:05:00", "daily"][rng.int(0...2)])
                    : atFixed(now.adding(seconds: Int64(rng.int(-7200...21_600))))
                let grace: Int64? = [nil, 0, 600][rng.int(0...2)]
                let local = makeLocal(id, trigger, title: ["A", "B"][rng.int(0...1)],
                                      cancelOn: rng.int(0...2) == 0 ? ["ev\(rng.int(0...1))"] : [], grace: grace)
                let cancel: CancelRequest? = rng.int(0...7) == 0 ? .run(runId(of: id)) : nil
                ops.append((.push(Push(cancel: cancel, local: local, messageId: "m\(rng.int(0...9))")), now))
            case 4: ops.append((.cancelID(id), now))
            case 5: ops.append((.cancelRun("run_\(rng.int(1...3))"), now))
            case 6: ops.append((.track("ev\(rng.int(0...1))"), now))
            case 7, 8:
                let span = Int64(rng.int(1...14_400))
                now = now.adding(seconds: span)
                ops.append((.advance(span, .timePassing), now))
            default:
                let step = Int64(rng.int(-3600...14_400))
                now = now.adding(seconds: step)
                ops.append((rng.int(0...3) == 0 ? .retry : .advance(step, .wallClock), now))
            }
        }
        return ops
    }

    /// Runs `ops`, restarting the engine (at the clock reading before the operation) before every operation
    /// whose index is a multiple of `restartEvery`.
    static func run(_ ops: [(Operation, Instant)], start: Instant, restartEvery: Int?) throws
        -> (shown: [DueNotification], history: [HistoryRecord], answers: [String]) {
        let h = try EngineHarness(now: start)
        var answers: [String] = []
        var clock = start  // where the clock stands before the operation: the restart happens then
        for (index, (op, now)) in ops.enumerated() {
            if let restartEvery, index % restartEvery == 0 { try h.restart(now: clock) }
            clock = now
            h.notifier.failure = index % 4 == 1 ? "no server" : nil
            switch op {
            case .push(let push): answers.append("\(try h.e.push(push, now: now))")
            case .cancelID(let id): answers.append("\(try h.e.cancel(id: id, now: now))")
            case .cancelRun(let run): answers.append("\(try h.e.cancel(run: run, now: now))")
            case .track(let event): answers.append("\(try h.e.track(event: event, dataJSON: nil, now: now))")
            case .advance(_, let mode): answers.append("\(try h.e.advance(to: now, mode: mode).map(\.id))")
            case .retry: answers.append("\(try h.e.retryFailed(now: now).map(\.id))")
            }
            answers.append("next=\(String(describing: h.e.nextDue)) list=\(try h.e.list(limit: nil).map(\.id))")
        }
        return (h.notifier.shown, try h.e.history(limit: 100_000), answers)
    }

    func testRestartsBetweenOperations_changeNothing_andEveryDisplayHasItsRecord() throws {
        let start = utc(2026, 4, 1, 8)
        var (totalShown, totalFailed) = (0, 0)
        for seed: UInt64 in [1, 2, 3, 4] {
            let ops = Self.operations(seed: seed, count: 120, start: start)
            let straight = try Self.run(ops, start: start, restartEvery: nil)
            let restarted = try Self.run(ops, start: start, restartEvery: 3)
            if let i = zip(restarted.answers, straight.answers).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
                XCTFail("seed \(seed) first divergence at answer \(i) op \(ops[i / 2]):\n restarted \(restarted.answers[i])\n straight  \(straight.answers[i])")
            }
            XCTAssertEqual(restarted.answers, straight.answers, "seed \(seed)")
            XCTAssertEqual(restarted.shown, straight.shown, "seed \(seed)")
            XCTAssertEqual(restarted.history, straight.history, "seed \(seed)")

            // Accounting: every display has its own durable `fired` record, and every `fired` record is either
            // displayed once or followed by `failed` (then retried under a new `fired` record).
            let fired = straight.history.filter { $0.event == .fired }.count
            let failed = straight.history.filter { $0.event == .failed }.count
            XCTAssertEqual(straight.shown.count, fired - failed, "seed \(seed)")
            (totalShown, totalFailed) = (totalShown + straight.shown.count, totalFailed + failed)
        }
        XCTAssertGreaterThan(totalShown, 10, "the sequences exercise firing")
        XCTAssertGreaterThan(totalFailed, 0, "the sequences exercise failed deliveries")
    }
}
