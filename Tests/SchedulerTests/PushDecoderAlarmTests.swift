import Foundation
import SchedCalendar
import SystemZones
import XCTest
@testable import Scheduler

/// `bk.local.alarm` and `bk.local.wake` (CONTRACT §11): decoded, kept with the schedule, and the earliest
/// wake schedule found on its index.
final class PushDecoderAlarmTests: XCTestCase {
    private func decode(_ extra: String) throws -> Push {
        try PushDecoder.decode(Array(localPush(extra).utf8), zones: ZoneDatabase.shared)
    }

    func testAlarm_impliesWake_andGetsASnoozeWhenItHasNone() throws {
        let alarm = try decode(#""alarm":true"#)
        XCTAssertEqual(alarm.unknownMembers, [], "understood, never warned about")
        XCTAssertEqual(alarm.local?.alarm, true)
        XCTAssertEqual(alarm.local?.wake, true)
        XCTAssertEqual(alarm.scheduleExtras, NotificationExtras(snoozeSeconds: [600], alarm: true, wake: true))
        let own = try decode(#""alarm":true,"snoozeSeconds":[300]"#)
        XCTAssertEqual(own.scheduleExtras.snoozeSeconds, [300], "its own durations are kept")
        let wake = try decode(#""wake":true"#)
        XCTAssertEqual(wake.scheduleExtras, NotificationExtras(wake: true))
        XCTAssertEqual(try decode(#""alarm":false,"wake":false"#).scheduleExtras, NotificationExtras())
    }

    func testNonBooleans_areRejected_namingTheMember() {
        for (extra, member) in [(#""alarm":"yes""#, "bk.local.alarm"), (#""wake":1"#, "bk.local.wake"),
                                (#""alarm":null"#, "bk.local.alarm")] {
            XCTAssertThrowsError(try decode(extra), extra) { error in
                XCTAssertEqual((error as? PushError)?.message, "\(member): must be true or false", extra)
            }
        }
    }

    func testExtras_roundTripThroughTheStoreCoding() {
        let extras = NotificationExtras(deepLink: "x://y", snoozeSeconds: [600], alarm: true, wake: true)
        XCTAssertEqual(StoreCoding.decodeExtras(StoreCoding.encode(extras: extras)), extras)
        XCTAssertNil(StoreCoding.encode(extras: NotificationExtras()))
    }

    func testEarliestWake_usesItsIndex_andPassesOverAFalseMatch() throws {
        let path = NSTemporaryDirectory() + "schedd-wake-\(UUID().uuidString).db"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let notifier = RecordingNotifier()
        let now = Instant(seconds: 1_780_000_000)
        let engine = try Engine(databasePath: path, notifier: notifier, deviceZone: .utc, zones: ZoneDatabase.shared, now: now)
        func push(_ id: String, _ at: String, _ extra: String) throws {
            let text = localPush(extra, id: "\"\(id)\"", trigger: "\"at\":\"\(at)\"")
            _ = try engine.push(PushDecoder.decode(Array(text.utf8), zones: ZoneDatabase.shared), app: Engine.defaultApp, now: now)
        }
        XCTAssertNil(try engine.earliestWake())
        try push("plain", "2026-06-01T10:00:00Z", "")
        try push("fake", "2026-06-01T11:00:00Z", #""category":"\"wake\":true""#)
        XCTAssertNil(try engine.earliestWake(), "a category holding the text is no wake schedule")
        try push("later", "2026-06-03T10:00:00Z", #""wake":true"#)
        try push("alarm", "2026-06-02T10:00:00Z", #""alarm":true"#)
        XCTAssertEqual(try engine.earliestWake(), Instant(seconds: 1_780_394_400))  // 2026-06-02T10:00:00Z
        let store = try SQLiteScheduleStore(path: path)
        defer { store.close() }
        let plan = try queryPlan(store.db, #"SELECT next_due, detail FROM schedules WHERE detail LIKE '%"wake":true%' ORDER BY next_due"#)
        XCTAssertTrue(plan.contains("schedules_wake"), plan)
    }
}
