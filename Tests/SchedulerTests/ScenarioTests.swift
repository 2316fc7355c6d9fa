import SchedCalendar
import XCTest
@testable import Scheduler

/// CONTRACT scenarios on a fake clock (explicit `now` values) in several zones, each with a restart (close and
/// reopen the engine on the same database file) in the middle. Expected instants are worked out by hand from
/// the zones' offsets: Berlin CET +1 / CEST +2 (2026: CEST from 03-29 01:00Z to 10-25 01:00Z); New York
/// EST -5 / EDT -4 (2026: EDT from 03-08 07:00Z to 11-01 06:00Z); Kolkata +05:30.
final class ScenarioTests: XCTestCase {
    /// Daily floating 19:00 in `zoneName` pushed at `pushAt`, with a restart at `restartAt`, advanced (time
    /// passing) to `end`: fires exactly at `expected`, and each firing is 19:00 on the local wall clock.
    private func checkFloatingDaily(zoneName: String, pushAt: Instant, restartAt: Instant, end: Instant,
                                    expected: [Instant], file: StaticString = #filePath, line: UInt = #line) throws {
        let zone = try loadZone(zoneName)
        let h = try EngineHarness(zone: zone, now: pushAt)
        let outcome = try h.push(makeLocal("daily", .calendar("*-*-* 19:00:00")), now: pushAt)
        XCTAssertEqual(outcome.status, .scheduled, file: file, line: line)
        try h.e.advance(to: restartAt, mode: .timePassing)
        try h.restart(now: restartAt)
        try h.e.advance(to: end, mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.due), expected, file: file, line: line)
        XCTAssertEqual(h.notifier.shown.map(\.at), expected, "on time", file: file, line: line)
        for n in h.notifier.shown {
            let local = zone.localDateTime(at: n.due)
            XCTAssertEqual([local.hour, local.minute], [19, 0], "\(n.due)", file: file, line: line)
        }
    }

    func testFloating1900_throughSpringForward_Berlin() throws {
        try checkFloatingDaily(
            zoneName: "Europe/Berlin", pushAt: utc(2026, 3, 27, 12), restartAt: utc(2026, 3, 29, 6),
            end: utc(2026, 3, 31),
            expected: [utc(2026, 3, 27, 18),   // 2026-03-27T19:00+01:00
                       utc(2026, 3, 28, 18),   // 2026-03-28T19:00+01:00
                       utc(2026, 3, 29, 17),   // 2026-03-29T19:00+02:00
                       utc(2026, 3, 30, 17)])  // 2026-03-30T19:00+02:00
    }

    func testFloating1900_throughFallBack_Berlin() throws {
        try checkFloatingDaily(
            zoneName: "Europe/Berlin", pushAt: utc(2026, 10, 23, 12), restartAt: utc(2026, 10, 25, 0, 30),
            end: utc(2026, 10, 27),
            expected: [utc(2026, 10, 23, 17),   // 2026-10-23T19:00+02:00
                       utc(2026, 10, 24, 17),   // 2026-10-24T19:00+02:00
                       utc(2026, 10, 25, 18),   // 2026-10-25T19:00+01:00
                       utc(2026, 10, 26, 18)])  // 2026-10-26T19:00+01:00
    }

    func testFloating1900_throughSpringForwardAndFallBack_NewYork() throws {
        try checkFloatingDaily(
            zoneName: "America/New_York", pushAt: utc(2026, 3, 7, 12), restartAt: utc(2026, 3, 8, 7, 30),
            end: utc(2026, 3, 10),
            expected: [utc(2026, 3, 8, 0),     // 2026-03-07T19:00-05:00
                       utc(2026, 3, 8, 23),    // 2026-03-08T19:00-04:00
                       utc(2026, 3, 9, 23)])   // 2026-03-09T19:00-04:00
        try checkFloatingDaily(
            zoneName: "America/New_York", pushAt: utc(2026, 10, 31, 12), restartAt: utc(2026, 11, 1, 5, 59),
            end: utc(2026, 11, 3),
            expected: [utc(2026, 10, 31, 23),  // 2026-10-31T19:00-04:00
                       utc(2026, 11, 2, 0),    // 2026-11-01T19:00-05:00
                       utc(2026, 11, 3, 0)])   // 2026-11-02T19:00-05:00
    }

    func testFloatingOneShot1900_onTransitionDays() throws {
        let zone = try loadZone("Europe/Berlin")
        let h = try EngineHarness(zone: zone, now: utc(2026, 3, 1))
        XCTAssertEqual(try h.push(makeLocal("spring", atWall(wall(2026, 3, 29, 19))), now: utc(2026, 3, 1)).next,
                       utc(2026, 3, 29, 17))  // 2026-03-29T19:00+02:00
        XCTAssertEqual(try h.push(makeLocal("fall", atWall(wall(2026, 10, 25, 19))), now: utc(2026, 3, 1)).next,
                       utc(2026, 10, 25, 18))  // 2026-10-25T19:00+01:00
        try h.e.advance(to: utc(2026, 6, 1), mode: .timePassing)
        try h.restart(now: utc(2026, 6, 1))
        try h.e.advance(to: utc(2026, 12, 1), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.due), [utc(2026, 3, 29, 17), utc(2026, 10, 25, 18)])
    }

    /// A wall time in a gap fires once, at the instant the offset before the gap gives.
    func testGapTime_firesOnceAtShiftedInstant() throws {
        let cases: [(zone: String, wall: CivilDateTime, instant: Instant)] = [
            ("America/New_York", wall(2026, 3, 8, 2, 30), utc(2026, 3, 8, 7, 30)),  // = 03:30 EDT
            ("Europe/Berlin", wall(2026, 3, 29, 2, 30), utc(2026, 3, 29, 1, 30)),   // = 03:30 CEST
        ]
        for c in cases {
            let zone = try loadZone(c.zone)
            let start = c.instant.adding(seconds: -86_400)
            let h = try EngineHarness(zone: zone, now: start)
            XCTAssertEqual(try h.push(makeLocal("gap", atWall(c.wall)), now: start).next, c.instant, c.zone)
            try h.e.advance(to: c.instant.adding(seconds: -3600), mode: .timePassing)
            try h.restart(now: c.instant.adding(seconds: -3600))
            try h.e.advance(to: c.instant.adding(seconds: 86_400), mode: .timePassing)
            XCTAssertEqual(h.notifier.shown.map(\.at), [c.instant], c.zone)
        }
    }

    /// A wall time in a fold fires once, at its first occurrence.
    func testFoldTime_firesOnceAtFirstOccurrence() throws {
        let cases: [(zone: String, wall: CivilDateTime, first: Instant)] = [
            ("America/New_York", wall(2026, 11, 1, 1, 30), utc(2026, 11, 1, 5, 30)),  // 01:30 EDT (again at 06:30Z)
            ("Europe/Berlin", wall(2026, 10, 25, 2, 30), utc(2026, 10, 25, 0, 30)),   // 02:30 CEST (again at 01:30Z)
        ]
        for c in cases {
            let zone = try loadZone(c.zone)
            let start = c.first.adding(seconds: -86_400)
            let h = try EngineHarness(zone: zone, now: start)
            XCTAssertEqual(try h.push(makeLocal("fold", atWall(c.wall)), now: start).next, c.first, c.zone)
            try h.e.advance(to: c.first.adding(seconds: 1800), mode: .timePassing)
            try h.restart(now: c.first.adding(seconds: 1800))
            try h.e.advance(to: c.first.adding(seconds: 86_400), mode: .timePassing)
            XCTAssertEqual(h.notifier.shown.map(\.at), [c.first], c.zone)
            let outcome = try h.push(makeLocal("fold", atWall(c.wall)), now: c.first.adding(seconds: 86_400))
            XCTAssertEqual(outcome.status, .duplicate, c.zone)
        }
    }

    func testDeviceZoneChange_BerlinToNewYork_withSchedulesPending() throws {
        let berlin = try loadZone("Europe/Berlin")
        let newYork = try loadZone("America/New_York")
        let start = utc(2026, 6, 10)
        let h = try EngineHarness(zone: berlin, now: start)
        XCTAssertEqual(try h.push(makeLocal("floating", atWall(wall(2026, 6, 10, 19))), now: start).next,
                       utc(2026, 6, 10, 17))  // 19:00+02:00
        XCTAssertEqual(try h.push(makeLocal("pinned", atWall(wall(2026, 6, 10, 19), zone: "Europe/Berlin")),
                                  now: start).next, utc(2026, 6, 10, 17))
        try h.push(makeLocal("fixed", atFixed(utc(2026, 6, 10, 18))), now: start)
        XCTAssertEqual(try h.push(makeLocal("morning", .calendar("*-*-* 08:00:00")), now: start).next,
                       utc(2026, 6, 10, 6))  // 08:00+02:00
        try h.e.advance(to: utc(2026, 6, 10, 12), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.id), ["morning"])

        try h.e.deviceZoneChanged(to: newYork, now: utc(2026, 6, 10, 12))
        let listed = try h.e.list(limit: nil)
        XCTAssertEqual(listed.map(\.id), ["pinned", "fixed", "floating", "morning"])  // by next due
        XCTAssertEqual(listed.first { $0.id == "floating" }?.zone, "America/New_York")
        XCTAssertEqual(listed.first { $0.id == "pinned" }?.zone, "Europe/Berlin")
        try h.restart(now: utc(2026, 6, 10, 16), zone: newYork)
        try h.e.advance(to: utc(2026, 6, 11, 13), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.id), ["morning", "pinned", "fixed", "floating", "morning"])
        XCTAssertEqual(h.notifier.shown.map(\.due), [
            utc(2026, 6, 10, 6),    // 08:00+02:00 Berlin
            utc(2026, 6, 10, 17),   // 19:00+02:00, pinned to Berlin
            utc(2026, 6, 10, 18),   // fixed instant
            utc(2026, 6, 10, 23),   // 19:00-04:00 New York
            utc(2026, 6, 11, 12),   // 08:00-04:00 New York
        ])
    }

    func testDeviceZoneChangedWhileDown_isAppliedOnRestart() throws {
        let berlin = try loadZone("Europe/Berlin")
        let newYork = try loadZone("America/New_York")
        let start = utc(2026, 6, 10)
        let h = try EngineHarness(zone: berlin, now: start)
        try h.push(makeLocal("floating", atWall(wall(2026, 6, 10, 19))), now: start)
        try h.restart(now: utc(2026, 6, 10, 12), zone: newYork)
        XCTAssertEqual(h.e.nextDue, utc(2026, 6, 10, 23))
        try h.e.advance(to: utc(2026, 6, 11), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.at), [utc(2026, 6, 10, 23)])
    }

    func testMonToFri0900_overThreeWeeks_isExactly15Firings() throws {
        let zone = try loadZone("America/New_York")
        let start = utc(2026, 3, 1)  // Saturday 2026-02-28 19:00 EST
        let h = try EngineHarness(zone: zone, now: start)
        XCTAssertEqual(try h.push(makeLocal("standup", .calendar("Mon..Fri 09:00")), now: start).status, .scheduled)
        try h.e.advance(to: utc(2026, 3, 11), mode: .timePassing)
        try h.restart(now: utc(2026, 3, 11))
        try h.e.advance(to: utc(2026, 3, 22), mode: .timePassing)  // Sunday
        let est = [2, 3, 4, 5, 6].map { utc(2026, 3, $0, 14) }                  // 09:00-05:00
        let edt = [9, 10, 11, 12, 13, 16, 17, 18, 19, 20].map { utc(2026, 3, $0, 13) }  // 09:00-04:00
        XCTAssertEqual(h.notifier.shown.map(\.due), est + edt)
        XCTAssertEqual(try h.history().filter { $0.event == .fired }.count, 15)
    }

    func testCancelPushBeforeItsLocalPush() throws {
        let zone = try loadZone("Europe/Berlin")
        let start = utc(2026, 5, 4, 8)
        let h = try EngineHarness(zone: zone, now: start)
        _ = try h.e.push(Push(cancel: .id("run_7:remind")), now: start)
        try h.restart(now: start.adding(seconds: 60))
        let late = try h.push(makeLocal("run_7:remind", atWall(wall(2026, 5, 4, 18))), now: start.adding(seconds: 60))
        XCTAssertEqual(late.status, .cancelled)
        XCTAssertNil(late.next)
        try h.e.advance(to: utc(2026, 5, 5), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown, [])
    }

    func testDuplicateDelivery_beforeAndAfterFiring() throws {
        let zone = try loadZone("Asia/Kolkata")
        let start = utc(2026, 5, 4, 0)
        let h = try EngineHarness(zone: zone, now: start)
        let local = makeLocal("run_1:pill", atWall(wall(2026, 5, 4, 9)))  // 03:30Z
        XCTAssertEqual(try h.push(local, now: start).next, utc(2026, 5, 4, 3, 30))
        try h.restart(now: start.adding(seconds: 10))
        XCTAssertEqual(try h.push(local, now: start.adding(seconds: 10)).status, .duplicate)
        try h.e.advance(to: utc(2026, 5, 4, 4), mode: .timePassing)
        try h.restart(now: utc(2026, 5, 4, 4))
        XCTAssertEqual(try h.push(local, now: utc(2026, 5, 4, 4)).status, .duplicate)
        try h.e.advance(to: utc(2026, 5, 5), mode: .wallClock)
        XCTAssertEqual(h.notifier.shown.map(\.at), [utc(2026, 5, 4, 3, 30)])
        XCTAssertEqual(try h.history().map(\.event), [.fired])
    }

    func testRunCancellation_run4DoesNotCoverRun44() throws {
        let zone = try loadZone("Europe/Berlin")
        let start = utc(2026, 5, 4, 8)
        let h = try EngineHarness(zone: zone, now: start)
        for id in ["run_4:a", "run_4:b", "run_44:a"] {
            try h.push(makeLocal(id, atWall(wall(2026, 5, 4, 20))), now: start)
        }
        try h.restart(now: start.adding(seconds: 60))
        XCTAssertEqual(Set(try h.e.push(Push(cancel: .run("run_4")), now: start.adding(seconds: 60))[0].cancelled ?? []),
                       ["run_4:a", "run_4:b"])
        try h.restart(now: start.adding(seconds: 120))
        try h.e.advance(to: utc(2026, 5, 5), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.id), ["run_44:a"])
        XCTAssertEqual(try h.history().filter { $0.event == .cancelled }.map(\.reason), ["run", "run"])
    }

    func testCancelOn_matchingAndNonMatchingEvents() throws {
        let zone = try loadZone("America/New_York")
        let start = utc(2026, 5, 4, 12)
        let h = try EngineHarness(zone: zone, now: start)
        try h.push(makeLocal("cart", atWall(wall(2026, 5, 4, 20)), cancelOn: ["checkout"]), now: start)
        try h.push(makeLocal("streak", atWall(wall(2026, 5, 4, 21)), cancelOn: ["lesson_done"]), now: start)
        try h.restart(now: start.adding(seconds: 60))
        XCTAssertEqual(try h.e.track(event: "checkout", dataJSON: #"{"total":3}"#, now: start.adding(seconds: 60)),
                       ["cart"])
        XCTAssertEqual(try h.e.track(event: "checkout_started", dataJSON: nil, now: start.adding(seconds: 61)), [])
        XCTAssertEqual(try h.e.track(event: "lesson", dataJSON: nil, now: start.adding(seconds: 62)), [])
        try h.restart(now: start.adding(seconds: 120))
        try h.e.advance(to: utc(2026, 5, 5, 12), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.id), ["streak"])
        XCTAssertEqual(try h.history().first?.reason, "event:checkout")
    }

    /// Hourly at :00 IST (:30Z); the daemon is down over five occurrences.
    func testRepeatingSchedule_missedFiveOccurrences_firesOnce_thenContinues() throws {
        let zone = try loadZone("Asia/Kolkata")
        let start = utc(2026, 5, 1, 10, 45)
        let h = try EngineHarness(zone: zone, now: start)
        XCTAssertEqual(try h.push(makeLocal("hourly", .calendar("*-*-* *:00:00")), now: start).next,
                       utc(2026, 5, 1, 11, 30))
        h.engine?.close()
        h.engine = nil
        // Down over 11:30Z, 12:30Z, 13:30Z, 14:30Z and 15:30Z.
        try h.restart(now: utc(2026, 5, 1, 15, 45))
        let caughtUp = try h.e.advance(to: utc(2026, 5, 1, 15, 45), mode: .wallClock)
        XCTAssertEqual(caughtUp.map(\.due), [utc(2026, 5, 1, 15, 30)])
        XCTAssertEqual(caughtUp.map(\.lateSeconds), [900])
        try h.e.advance(to: utc(2026, 5, 1, 17), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.due), [utc(2026, 5, 1, 15, 30), utc(2026, 5, 1, 16, 30)])
        XCTAssertEqual(try h.history().map(\.event), [.fired, .fired])
    }

    func testRepeatingSchedule_missedBeyondGrace_recordsOneMissed_thenContinues() throws {
        let zone = try loadZone("Asia/Kolkata")
        let start = utc(2026, 5, 1, 10, 45)
        let h = try EngineHarness(zone: zone, now: start)
        try h.push(makeLocal("hourly", .calendar("*-*-* *:00:00"), grace: 600), now: start)
        try h.restart(now: utc(2026, 5, 1, 15, 45))
        XCTAssertEqual(try h.e.advance(to: utc(2026, 5, 1, 15, 45), mode: .wallClock), [])
        try h.e.advance(to: utc(2026, 5, 1, 17), mode: .timePassing)
        XCTAssertEqual(try h.history().map(\.event), [.missed, .fired])
        XCTAssertEqual(h.notifier.shown.map(\.due), [utc(2026, 5, 1, 16, 30)])
    }

    func testLateWithinGrace_equalIsShown_vsMissed() throws {
        let zone = try loadZone("Europe/Berlin")
        let start = utc(2026, 7, 1, 5)
        let h = try EngineHarness(zone: zone, now: start)
        try h.push(makeLocal("edge", atWall(CivilDateTime(year: 2026, month: 7, day: 1, hour: 9)), grace: 300), now: start)
        try h.push(makeLocal("over", atWall(CivilDateTime(year: 2026, month: 7, day: 1, hour: 8, minute: 59, second: 59)),
                             grace: 300), now: start)
        try h.restart(now: utc(2026, 7, 1, 7, 5))  // down over 09:00+02:00 (07:00Z)
        let fired = try h.e.advance(to: utc(2026, 7, 1, 7, 5), mode: .wallClock)
        XCTAssertEqual(fired.map(\.id), ["edge"])
        XCTAssertEqual(fired.map(\.lateSeconds), [300])
        XCTAssertEqual(try h.history().map(\.event), [.missed, .fired])
        XCTAssertEqual(try h.history().first?.lateSeconds, 301)
    }
}
