import SchedCalendar
import XCTest
@testable import Scheduler

/// CONTRACT §2/§3: a zone change found at start is applied after catching up, in the old zone, on what
/// fell due while the daemon was down; every schedule that leaves the pending set leaves a record saying why.
final class EngineZoneChangeAtStartTests: XCTestCase {
    /// The report: a floating hourly calendar, down 5 h, restarted with Berlin → Tokyo — one late `fired`.
    func testHourlyCalendar_down5h_BerlinToTokyo_firesOnceLate_inTheOldZone() throws {
        let berlin = try loadZone("Europe/Berlin"), tokyo = try loadZone("Asia/Tokyo")
        let start = utc(2026, 6, 10, 8, 30)
        let h = try EngineHarness(zone: berlin, now: start)
        try h.push(makeLocal("hourly", .calendar("*-*-* *:00:00")), now: start)
        try h.e.advance(to: utc(2026, 6, 10, 9, 30), mode: .timePassing)   // 11:00 Berlin fired
        XCTAssertEqual(h.notifier.shown.count, 1)
        try h.restart(now: utc(2026, 6, 10, 14, 30), zone: tokyo)  // down 5 h
        XCTAssertEqual(h.notifier.shown.count, 2, "one late firing for the missed occurrences")
        let late = try XCTUnwrap(h.notifier.shown.last)
        XCTAssertEqual(late.due, utc(2026, 6, 10, 14), "the latest missed occurrence, 16:00 Berlin")
        XCTAssertEqual(late.lateSeconds, 1800)
        XCTAssertEqual(try h.events(of: "hourly"), [.fired, .fired])
        XCTAssertEqual(h.e.nextDue, utc(2026, 6, 10, 15), "then hourly in Tokyo (00:00 JST)")
    }

    func testUntilPassedByTheZoneChange_isExpired_withARecord() throws {
        let tokyo = try loadZone("Asia/Tokyo"), newYork = try loadZone("America/New_York")
        let start = utc(2026, 6, 10, 0)  // 09:00 JST
        let h = try EngineHarness(zone: tokyo, now: start)
        // Daily at 20:00 floating, until 2026-06-10T21:00 floating: in Tokyo one occurrence left (11:00Z).
        let local = makeLocal("evening", .calendar("*-*-* 20:00:00"), until: .floating(wall(2026, 6, 10, 21), zone: nil))
        XCTAssertEqual(try h.push(local, now: start).next, utc(2026, 6, 10, 11))
        // At 10:00Z the zone becomes New York (06:00 EDT): until 21:00 EDT = 01:00Z the 11th, so 20:00 EDT
        // (00:00Z the 11th) is the last occurrence; after it the calendar is over.
        try h.restart(now: utc(2026, 6, 10, 10), zone: newYork)
        XCTAssertEqual(h.e.nextDue, utc(2026, 6, 11, 0))
        try h.e.advance(to: utc(2026, 6, 12), mode: .timePassing)
        XCTAssertEqual(try h.events(of: "evening"), [.fired, .expired])
        XCTAssertEqual(try h.history().last?.reason, "until")

        // A floating calendar whose `until` the zone change moves before its next elapse: expired at the change.
        let h2 = try EngineHarness(zone: newYork, now: utc(2026, 6, 10, 12))  // 08:00 EDT
        let soon = makeLocal("soon", .calendar("*-*-* 20:00:00"), until: .floating(wall(2026, 6, 10, 21), zone: nil))
        XCTAssertEqual(try h2.push(soon, now: utc(2026, 6, 10, 12)).next, utc(2026, 6, 11, 0))
        try h2.restart(now: utc(2026, 6, 10, 13), zone: tokyo)  // 22:00 JST: past until 21:00 JST
        XCTAssertEqual(h2.e.pendingCount, 0)
        XCTAssertEqual(try h2.events(of: "soon"), [.expired])
        XCTAssertEqual(h2.notifier.shown, [])
    }

    /// Pending + history account for every push across a zone change while down.
    func testPendingPlusHistory_accountForEveryPush() throws {
        let berlin = try loadZone("Europe/Berlin"), tokyo = try loadZone("Asia/Tokyo")
        let start = utc(2026, 6, 10, 6)
        let h = try EngineHarness(zone: berlin, now: start)
        let pushes = [
            makeLocal("one-shot-soon", atWall(wall(2026, 6, 10, 9))),                     // 07:00Z, fires late
            makeLocal("one-shot-long-ago", atWall(wall(2026, 6, 10, 8, 30)), grace: 60),  // missed
            makeLocal("one-shot-later", atWall(wall(2026, 6, 11, 9))),                    // stays pending
            makeLocal("pinned", atWall(wall(2026, 6, 10, 10), zone: "Europe/Berlin")),
            makeLocal("calendar", .calendar("*-*-* *:15:00")),
            makeLocal("calendar-until", .calendar("*-*-* *:45:00"), until: .floating(wall(2026, 6, 10, 10), zone: nil)),
            makeLocal("fixed", atFixed(utc(2026, 6, 10, 20))),
        ]
        for p in pushes { try h.push(p, now: start) }
        try h.restart(now: utc(2026, 6, 10, 7, 30), zone: tokyo)  // down 90 min; 09:00 Berlin is 30 min late
        try h.e.advance(to: utc(2026, 6, 10, 7, 30), mode: .wallClock)
        let pending = Set(try h.e.list(limit: nil).map(\.id))
        let history = try h.history()
        for p in pushes {
            let events = history.filter { $0.id == p.id }.map(\.event)
            XCTAssertTrue(pending.contains(p.id) || !events.isEmpty, "\(p.id) vanished: not pending, no history")
            if !pending.contains(p.id) {
                XCTAssertTrue([.fired, .missed, .expired, .cancelled].contains(events.last!), "\(p.id): \(events)")
            }
        }
        XCTAssertEqual(history.filter { $0.id == "one-shot-soon" }.map(\.event), [.fired])
        XCTAssertEqual(history.filter { $0.id == "one-shot-long-ago" }.map(\.event), [.missed])
        XCTAssertEqual(history.filter { $0.id == "calendar-until" }.map(\.event), [.fired, .expired])
        XCTAssertTrue(pending.isSuperset(of: ["one-shot-later", "calendar", "fixed"]))
    }
}
