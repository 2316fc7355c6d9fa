import SystemZones
import SchedCalendar
import XCTest
@testable import Scheduler

/// The engine fed by the real decoder: JSON text in, CONTRACT §7 answers out.
final class EngineDecodedPushTests: XCTestCase {
    func push(_ h: EngineHarness, _ json: String, now: Instant) throws -> [PushOutcome] {
        try h.e.push(try PushDecoder.decode(Array(json.utf8), zones: ZoneDatabase.shared), now: now)
    }

    func testDecodedPushes_sameJSONInOtherKeyOrder_isDuplicate_newContentReplaces() throws {
        let berlin = try loadZone("Europe/Berlin")
        let now = utc(2026, 6, 1, 8)
        let h = try EngineHarness(zone: berlin, now: now)
        let first = #"{"bk":{"messageId":"m1","local":{"id":"run_1:a","at":"2026-06-01T19:00","title":"Hi","data":{"x":1}}}}"#
        let reordered = #"{"other":true,"bk":{"local":{"title":"Hi","data":{"x":1},"at":"2026-06-01T19:00","id":"run_1:a"}}}"#
        let changed = #"{"bk":{"local":{"id":"run_1:a","at":"2026-06-01T19:30","title":"Hi","data":{"x":1}}}}"#
        XCTAssertEqual(try push(h, first, now: now), [PushOutcome(id: "run_1:a", status: .scheduled, next: utc(2026, 6, 1, 17))])
        XCTAssertEqual(try push(h, reordered, now: now).map(\.status), [.duplicate])
        XCTAssertEqual(try push(h, changed, now: now), [PushOutcome(id: "run_1:a", status: .replaced,
                                                                   next: utc(2026, 6, 1, 17, 30))])
        try h.e.advance(to: utc(2026, 6, 2), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.dataJSON), [#"{"x":1}"#])
        XCTAssertEqual(try push(h, changed, now: utc(2026, 6, 2)).map(\.status), [.duplicate])
    }

    func testDecodedCancelAndLocal_calendarWithZoneSuffixAndUntil() throws {
        let newYork = try loadZone("America/New_York")
        let now = utc(2026, 6, 1)
        let h = try EngineHarness(zone: newYork, now: now)
        let json = #"{"bk":{"cancel":{"run":"run_5"},"local":{"id":"run_5:daily","calendar":"*-*-* 09:00 Europe/Berlin","until":"2026-06-03T09:00","title":"Daily"}}}"#
        let outcomes = try push(h, json, now: now)
        XCTAssertEqual(outcomes.map(\.status), [.cancelled, .scheduled])
        XCTAssertEqual(outcomes.last?.next, utc(2026, 6, 1, 7))  // 09:00+02:00
        try h.e.advance(to: utc(2026, 6, 10), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.due), [utc(2026, 6, 1, 7), utc(2026, 6, 2, 7), utc(2026, 6, 3, 7)])
        XCTAssertEqual(try h.e.list(limit: nil), [])
    }
}
