import SchedCalendar
import XCTest
@testable import Scheduler

/// Cancel ids, runs and tracked event names follow the id rule of CONTRACT §1 (1–200 bytes, events
/// 1–128, no control characters): a broken one is `.invalidArgument` naming the argument and the rule,
/// and leaves no tombstone (a later push under that id is still scheduled).
final class EngineCancelArgumentTests: XCTestCase {
    private let t0 = utc(2026, 3, 1, 12)

    private func assertInvalid(_ call: @autoclosure () throws -> [String], _ message: String,
                               file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try call(), file: file, line: line) { error in
            XCTAssertEqual((error as? EngineError)?.kind, .invalidArgument, file: file, line: line)
            XCTAssertEqual((error as? EngineError)?.message, message, file: file, line: line)
        }
    }

    func testCancelById_breakingTheIdRule_isRejected_andLeavesNoTombstone() throws {
        let h = try EngineHarness(now: t0)
        let long = String(repeating: "é", count: 101)  // 202 bytes, 101 characters
        for (id, rule) in [("", "must not be empty"), (long, "longer than 200 bytes"),
                           ("a\nb", "contains a control character"), ("x\u{85}", "contains a control character")] {
            assertInvalid(try h.e.cancel(id: id, now: t0), "id: " + rule)
            if !id.isEmpty {
                XCTAssertEqual(try h.push(makeLocal(id, atFixed(t0.adding(seconds: 60))), now: t0).status, .scheduled,
                               "a rejected cancel stores no tombstone")
            }
        }
        let longest = String(repeating: "r", count: 200)
        XCTAssertEqual(try h.e.cancel(id: longest, now: t0), [])
        XCTAssertEqual(try h.push(makeLocal(longest, atFixed(t0.adding(seconds: 60))), now: t0).status, .cancelled)
    }

    func testCancelByRun_breakingTheIdRule_isRejected_andLeavesNoTombstone() throws {
        let h = try EngineHarness(now: t0)
        try h.push(makeLocal("run\t1:a", atFixed(t0.adding(seconds: 60))), now: t0)
        assertInvalid(try h.e.cancel(run: "run\t1", now: t0), "run: contains a control character")
        assertInvalid(try h.e.cancel(run: "", now: t0), "run: must not be empty")
        assertInvalid(try h.e.cancel(run: String(repeating: "r", count: 201), now: t0), "run: longer than 200 bytes")
        XCTAssertEqual(try h.e.list(limit: nil).map(\.id), ["run\t1:a"], "nothing was cancelled")
        XCTAssertEqual(try h.push(makeLocal("run\t1:b", atFixed(t0.adding(seconds: 60))), now: t0).status, .scheduled)
    }

    func testTrack_eventNamesAre1To128BytesWithoutControlCharacters() throws {
        let h = try EngineHarness(now: t0)
        let longest = String(repeating: "e", count: 128)
        try h.push(makeLocal("a", atFixed(t0.adding(seconds: 60)), cancelOn: [longest + "e", "ev\u{1}", longest]),
                   now: t0)
        assertInvalid(try h.e.track(event: longest + "e", dataJSON: nil, now: t0), "event: longer than 128 bytes")
        assertInvalid(try h.e.track(event: "ev\u{1}", dataJSON: nil, now: t0), "event: contains a control character")
        assertInvalid(try h.e.track(event: "", dataJSON: nil, now: t0), "event: must not be empty")
        XCTAssertEqual(try h.e.list(limit: nil).map(\.id), ["a"])
        XCTAssertEqual(try h.e.track(event: longest, dataJSON: nil, now: t0), ["a"])
    }
}
