import Foundation
import XCTest

/// CONTRACT §1, §4 and §7 through the real daemon and CLI: idempotency, tombstones, run cancels,
/// cancelOn events, bulk NDJSON pushes and rejected input.
final class ContractPushTests: XCTestCase {
    func testDuplicate_beforeAndAfterFiring_changesNothingAndShowsNothingAgain() throws {
        let h = try ScheddHarness(fakeClock: "2026-04-01T08:00:00Z")
        defer { h.tearDown() }
        let push = localPush(id: "run_1:dup", at: "2026-04-01T09:00:00Z")
        XCTAssertEqual(try h.push(push).first?["status"] as? String, "scheduled")
        XCTAssertEqual(try h.push(push).first?["status"] as? String, "duplicate")
        try h.advance("2h")
        XCTAssertEqual(h.shown.count, 1)
        let again = try h.push(push).first
        XCTAssertEqual(again?["status"] as? String, "duplicate")
        XCTAssertTrue(again?["next"] is NSNull)
        try h.advance("1d")
        XCTAssertEqual(h.shown.count, 1)
        // New content under the id of a fired one-shot is a new schedule.
        let changed = try h.push(localPush(id: "run_1:dup", at: "2026-04-02T12:00:00Z", title: "Changed"))
        XCTAssertEqual(changed.first?["status"] as? String, "scheduled")
        // A different push under a pending id replaces it (history: replaced with the old due).
        let replaced = try h.push(localPush(id: "run_1:dup", at: "2026-04-02T13:00:00Z", title: "Changed"))
        XCTAssertEqual(replaced.first?["status"] as? String, "replaced")
        let record = try h.history().last { $0["event"] as? String == "replaced" }
        XCTAssertEqual(record?["due"] as? String, "2026-04-02T12:00:00Z")
    }

    func testTombstone_cancelOfUnknownIdBlocksALaterPush_butNotOneInTheSamePush() throws {
        let h = try ScheddHarness(fakeClock: "2026-04-01T08:00:00Z")
        defer { h.tearDown() }
        let cancel = try h.json(["cancel", "run_9:x"]) as? [String: Any]
        XCTAssertEqual(cancel?["cancelled"] as? [String], [])
        let blocked = try h.push(localPush(id: "run_9:x", at: "2026-04-01T09:00:00Z")).first
        XCTAssertEqual(blocked?["status"] as? String, "cancelled")
        XCTAssertTrue(blocked?["next"] is NSNull)
        XCTAssertTrue(try h.list().isEmpty)
        // bk.cancel and bk.local together: the cancel first, and it does not block its own local.
        let both = "{\"bk\":{\"cancel\":{\"id\":\"run_9:y\"},\"local\":{\"id\":\"run_9:y\",\"at\":\"2026-04-01T10:00:00Z\",\"title\":\"T\"}}}"
        let answers = try h.push(both)
        XCTAssertEqual(answers.last?["status"] as? String, "scheduled")
        XCTAssertEqual(try h.list().map { $0["id"] as? String }, ["run_9:y"])
    }

    func testRunCancel_cancelsExactlyThatRun_andLeavesARunTombstone() throws {
        let h = try ScheddHarness(fakeClock: "2026-04-01T08:00:00Z")
        defer { h.tearDown() }
        for id in ["run_4:a", "run_4:b", "run_44:a", "run_4"] {
            _ = try h.push(localPush(id: id, at: "2026-04-01T09:00:00Z"))
        }
        let result = try h.json(["cancel", "--run", "run_4"]) as? [String: Any]
        XCTAssertEqual(Set(result?["cancelled"] as? [String] ?? []), ["run_4:a", "run_4:b", "run_4"])
        XCTAssertEqual(try h.list().map { $0["id"] as? String }, ["run_44:a"])
        let reasons = try h.history().filter { $0["event"] as? String == "cancelled" }.map { $0["reason"] as? String }
        XCTAssertEqual(reasons, ["run", "run", "run"])
        let later = try h.push(localPush(id: "run_4:c", at: "2026-04-01T09:00:00Z")).first
        XCTAssertEqual(later?["status"] as? String, "cancelled")
        try h.advance("2h")
        XCTAssertEqual(h.shown.map { $0["id"] as? String }, ["run_44:a"])
    }

    func testCancelOn_trackedEventCancelsMatchingSchedules_onlyThoseStoredBefore() throws {
        let h = try ScheddHarness(fakeClock: "2026-04-01T08:00:00Z")
        defer { h.tearDown() }
        _ = try h.push(localPush(id: "a", at: "2026-04-01T09:00:00Z", extra: "\"cancelOn\":[\"logout\",\"quit\"]"))
        _ = try h.push(localPush(id: "b", at: "2026-04-01T09:00:00Z", extra: "\"cancelOn\":[\"logout-all\"]"))
        let tracked = try h.json(["track", "logout"]) as? [String: Any]
        XCTAssertEqual(tracked?["event"] as? String, "logout")
        XCTAssertEqual(tracked?["cancelled"] as? [String], ["a"])
        let record = try h.history().first { $0["event"] as? String == "cancelled" }
        XCTAssertEqual(record?["reason"] as? String, "event:logout")
        // An event tracked before a schedule was stored does not cancel it.
        _ = try h.json(["track", "quit"])
        _ = try h.push(localPush(id: "c", at: "2026-04-01T09:30:00Z", extra: "\"cancelOn\":[\"quit\"]"))
        try h.advance("2h")
        XCTAssertEqual(h.shown.map { $0["id"] as? String }, ["b", "c"])
    }

    func testBulkPush_NDJSON_answersEachLineInOrder_rejectsBadLinesOneByOne() throws {
        let h = try ScheddHarness(fakeClock: "2026-04-01T08:00:00Z")
        defer { h.tearDown() }
        let lines = [
            localPush(id: "n:1", at: "2026-04-01T09:00:00Z"),
            "{\"bk\":{\"local\":{\"id\":\"n:2\",\"at\":\"2026-04-01T09:00:00Z\"}}}",
            "",
            localPush(id: "n:3", at: "2026-04-01T10:00:00Z", extra: "\"colour\":\"red\""),
            "{not json",
        ].joined(separator: "\n")
        let result = try h.cli(["push", "-", "--json"], stdin: lines)
        XCTAssertEqual(result.status, 1)
        let answers = result.lines.compactMap(parseObject)
        XCTAssertEqual(answers.count, 4, result.stdout)
        XCTAssertEqual(answers[0]["status"] as? String, "scheduled")
        XCTAssertTrue((answers[1]["error"] as? String)?.contains("title") == true, "\(answers[1])")
        XCTAssertEqual(answers[2]["status"] as? String, "scheduled")
        XCTAssertNotNil(answers[3]["error"])
        XCTAssertTrue(result.stderr.contains("colour"), result.stderr)
        XCTAssertEqual(try h.list().map { $0["id"] as? String }, ["n:1", "n:3"])
    }

    func testBadInput_isRejectedNamingTheMember_andNothingIsStored() throws {
        let h = try ScheddHarness(fakeClock: "2026-04-01T08:00:00Z")
        defer { h.tearDown() }
        let cases: [(push: String, member: String)] = [
            ("{\"bk\":{\"local\":{\"id\":\"x\",\"at\":\"2026-04-01T09:00\"}}}", "title"),
            ("{\"bk\":{\"local\":{\"id\":\"x\",\"title\":\"T\"}}}", "at"),
            ("{\"bk\":{\"local\":{\"id\":\"x\",\"title\":\"T\",\"at\":\"2026-04-01T09:00\",\"calendar\":\"daily\"}}}", "calendar"),
            (localPush(id: "x", at: "2026-04-01T09:00", extra: "\"timeZone\":\"Mars/Base\""), "timeZone"),
            (localPush(id: "x", calendar: "Someday 25:00"), "calendar"),
            (localPush(id: "x", at: "2026-02-30T09:00"), "at"),
            (localPush(id: "x", at: "2026-04-01T09:00", extra: "\"graceSeconds\":-1"), "graceSeconds"),
            (localPush(id: "x", at: "2026-04-01T09:00", extra: "\"urgency\":\"extreme\""), "urgency"),
            (localPush(id: "x", at: "2026-04-01T09:00", extra: "\"data\":[1]"), "data"),
            (localPush(id: String(repeating: "i", count: 201), at: "2026-04-01T09:00"), "id"),
            ("[1,2,3]", "push"),
        ]
        for c in cases {
            let result = try h.cli(["push", "-", "--json"], stdin: c.push)
            XCTAssertEqual(result.status, 1, c.push)
            let error = parseObject(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))?["error"] as? String
            XCTAssertNotNil(error, "\(c.push): \(result.stdout)")
            XCTAssertTrue(error?.contains(c.member) == true, "\(c.push): '\(error ?? "")' does not name \(c.member)")
        }
        XCTAssertTrue(try h.list().isEmpty)
        XCTAssertTrue(try h.history().isEmpty)
    }
}
