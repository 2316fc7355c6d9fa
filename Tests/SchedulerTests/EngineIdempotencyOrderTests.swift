import SchedCalendar
import XCTest
@testable import Scheduler

/// CONTRACT §1 idempotency across versions: a push applied once is `duplicate` whatever came after it —
/// delivered again before or after firing, after a newer version — and never brings back older content
/// or shows anything again. Every order of A, B, A, fire (12 distinct), on SQLite, with a restart in the
/// middle of each order as well.
final class EngineIdempotencyOrderTests: XCTestCase {
    let t0 = utc(2026, 3, 1, 12)
    enum Step: Character { case a = "A", b = "B", fire = "F" }

    /// The distinct orderings of the multiset.
    static func orders(_ items: [Step]) -> [[Step]] {
        if items.isEmpty { return [[]] }
        var seen = Set<String>(), result: [[Step]] = []
        for (i, first) in items.enumerated() {
            var rest = items
            rest.remove(at: i)
            for tail in orders(rest) {
                let order = [first] + tail
                if seen.insert(String(order.map(\.rawValue))).inserted { result.append(order) }
            }
        }
        return result
    }

    func run(_ order: [Step], restartAfter: Int?) throws {
        let name = String(order.map(\.rawValue)) + (restartAfter.map { " restart after \($0)" } ?? "")
        let h = try EngineHarness(now: t0)
        let a = makeLocal("run_1:x", atFixed(t0.adding(seconds: 60)), title: "v1", body: "first")
        let b = makeLocal("run_1:x", atFixed(t0.adding(seconds: 120)), title: "v2", body: "second")
        var applied = Set<String>(), pending: String?, expectedShown: [String] = []
        var now = t0
        for (index, step) in order.enumerated() {
            now = now.adding(seconds: 1)
            switch step {
            case .a, .b:
                let local = step == .a ? a : b
                let expected: PushOutcome.Status
                if applied.contains(local.title) {
                    expected = .duplicate
                } else {
                    expected = pending == nil ? .scheduled : .replaced
                    applied.insert(local.title)
                    pending = local.title
                }
                XCTAssertEqual(try h.push(local, now: now).status, expected, "\(name): step \(index) \(step)")
            case .fire:
                now = now.adding(seconds: 300)
                try h.e.advance(to: now, mode: .timePassing)
                if let shown = pending { expectedShown.append(shown) }
                pending = nil
            }
            XCTAssertEqual(try h.e.list(limit: nil).map(\.title), pending.map { [$0] } ?? [], "\(name): after \(index)")
            if restartAfter == index { try h.restart(now: now) }
        }
        try h.e.advance(to: now.adding(seconds: 86_400), mode: .timePassing)
        if let last = pending { expectedShown.append(last) }
        let shown = h.notifier.shown.map(\.title)
        XCTAssertEqual(shown, expectedShown, name)
        XCTAssertEqual(Set(shown).count, shown.count, "\(name): some content was shown twice")
        // When v1 was applied before v2, v1 is shown only if it fired before v2 arrived: never brought back.
        if shown.contains("v1"), let firstB = order.firstIndex(of: .b), let firstA = order.firstIndex(of: .a),
           firstA < firstB {
            XCTAssertTrue(order[firstA..<firstB].contains(.fire), "\(name): v1 came back after v2")
        }
    }

    func testEveryOrderOfA_B_A_fire() throws {
        let all = Self.orders([.a, .b, .a, .fire])
        XCTAssertEqual(all.count, 12)
        for order in all {
            try run(order, restartAfter: nil)
            try run(order, restartAfter: 1)
        }
    }

    /// The sender's view of the report: A, B, B fires, A redelivered by a relay → duplicate, nothing shown.
    func testRedeliveryOfAnOlderVersion_afterTheNewerFired_isDuplicate_andShowsNothing() throws {
        let h = try EngineHarness(now: t0)
        let a = makeLocal("x", atFixed(t0.adding(seconds: 60)), title: "v1")
        let b = makeLocal("x", atFixed(t0.adding(seconds: 60)), title: "v2")
        XCTAssertEqual(try h.push(a, now: t0).status, .scheduled)
        XCTAssertEqual(try h.push(b, now: t0).status, .replaced)
        try h.e.advance(to: t0.adding(seconds: 60), mode: .timePassing)
        XCTAssertEqual(try h.push(a, now: t0.adding(seconds: 61)).status, .duplicate)
        XCTAssertEqual(try h.push(b, now: t0.adding(seconds: 62)).status, .duplicate)
        try h.e.advance(to: t0.adding(seconds: 9000), mode: .wallClock)
        XCTAssertEqual(h.notifier.shown.map(\.title), ["v2"])
        XCTAssertEqual(try h.events(of: "x"), [.replaced, .fired])
    }
}
