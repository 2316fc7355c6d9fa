import Foundation
import Glibc
import XCTest

/// CONTRACT §8 v3: cursors, sequence numbers and counts in replies reveal nothing about other apps'
/// activity (issue 31 item 6). A sandboxed spy (fake Flatpak) pages its own schedules and history
/// before and after another app's burst of activity, as a spy would to measure it. On main 067d7ec the
/// `ListPage` cursor was `v1:NEXT:KEY` and `HistoryPage`'s `next` a sequence number, both global: the
/// difference between the spy's own two positions was the other app's row count plus one.
final class IsolationPagingTests: XCTestCase {
    static let spy = "org.example.Spy"
    static let victim = "org.example.Victim"
    static let burst = 40
    var h: ScheddHarness!

    override func setUpWithError() throws { h = try ScheddHarness(fakeClock: "2026-03-01T10:00:00Z") }
    override func tearDown() { h?.tearDown() }

    /// `busctl call … Scheduler1 METHOD SIG ARGS…` as the spy; the reply's `data` array.
    func spyCall(_ method: String, _ signature: String, _ args: [String]) throws -> [Any] {
        let r = try runAsFlatpak(Self.spy, "/usr/bin/busctl", ["--address=\(h.bus.address)", "--json=short", "--", "call",
                                                              "org.schedd.Scheduler1", "/org/schedd/Scheduler1",
                                                              "org.schedd.Scheduler1", method, signature] + args)
        XCTAssertEqual(r.status, 0, "\(method): \(r.stderr)")
        let object = try XCTUnwrap(parseObject(r.stdout), r.stdout)
        return try XCTUnwrap(object["data"] as? [Any], r.stdout)
    }

    func spyCallFailure(_ method: String, _ signature: String, _ args: [String]) throws -> String {
        let r = try runAsFlatpak(Self.spy, "/usr/bin/busctl", ["--address=\(h.bus.address)", "--", "call",
                                                              "org.schedd.Scheduler1", "/org/schedd/Scheduler1",
                                                              "org.schedd.Scheduler1", method, signature] + args)
        XCTAssertNotEqual(r.status, 0, "\(method) must be refused: \(r.stdout)")
        return r.stderr
    }

    func spyPush(_ id: String, at: String) throws {
        let r = try runAsFlatpak(Self.spy, Build.schedd, ["push", "-", "--bus", h.bus.address], stdin: localPush(id: id, at: at))
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    /// The integers a position carries (main 067d7ec's `v1:NEXT:KEY` → [NEXT, KEY]; a number → itself).
    func integers(_ position: String) -> [Int64] {
        position.split(separator: ":").compactMap { Int64($0) }
    }

    func victimBurst() throws {
        let lines = (0..<Self.burst).map { localPush(id: "v:\($0)", at: "2026-03-01T10:30:00Z") }.joined(separator: "\n")
        XCTAssertEqual(try h.cli(["push", "-", "--app", Self.victim], stdin: lines).status, 0)
    }

    func testListCursors_revealNothingOfAnotherAppsRows() throws {
        // The cursor after a row names that row's place: (next due, store key).
        try spyPush("s:1", at: "2026-03-01T11:00:00Z")
        try spyPush("s:z", at: "2026-03-01T12:00:00Z")
        let before = try XCTUnwrap(try spyCall("ListPage", "su", ["", "1"]).last as? String)
        try victimBurst()
        try spyPush("s:2", at: "2026-03-01T11:00:00Z")
        let page = try spyCall("ListPage", "su", [before, "1"])
        XCTAssertTrue((page.first as? String ?? "").contains("\"s:2\""), "the cursor still pages the spy's own: \(page)")
        let after = try XCTUnwrap(page.last as? String)
        let (a, b) = (integers(before), integers(after))
        if a.count == 2 && b.count == 2 {
            XCTAssertFalse((Int64(Self.burst)...Int64(Self.burst + 2)).contains(b[1] - a[1]),
                           "the key gap counts the victim's \(Self.burst) rows: \(before) → \(after)")
        }
        XCTAssertTrue(before.hasPrefix("v2:") && after.hasPrefix("v2:"), "sealed cursors: \(before), \(after)")
        XCTAssertFalse(before.contains(":1772") || after.contains(":1772"), "no due time in clear")

        // A cursor is the app's own: the victim's cursor does not page the spy's list, nor the reverse.
        let victimPage = try h.cli(["list", "--json", "--app", Self.victim, "--limit", "1"])
        XCTAssertEqual(victimPage.status, 0)
        let refused = try spyCallFailure("ListPage", "su", ["v1:1772362800000000:1", "1"])
        XCTAssertTrue(refused.contains("after must be"), refused)
    }

    func testHistoryPositions_revealNothingOfAnotherAppsRecords() throws {
        try spyPush("h:1", at: "2026-03-01T11:00:00Z")
        XCTAssertEqual(try runAsFlatpak(Self.spy, Build.schedd, ["cancel", "h:1", "--bus", h.bus.address]).status, 0)
        try spyPush("h:2", at: "2026-03-01T11:00:00Z")
        XCTAssertEqual(try runAsFlatpak(Self.spy, Build.schedd, ["cancel", "h:2", "--bus", h.bus.address]).status, 0)
        // Its own newest record; `next` is the position of the page before it.
        let first = try XCTUnwrap(try spyCall("HistoryPage", "tu", ["0", "1"]).last as? NSNumber).uint64Value
        try victimBurst()
        try spyPush("h:3", at: "2026-03-01T11:00:00Z")
        XCTAssertEqual(try runAsFlatpak(Self.spy, Build.schedd, ["cancel", "h:3", "--bus", h.bus.address]).status, 0)
        let second = try XCTUnwrap(try spyCall("HistoryPage", "tu", ["0", "1"]).last as? NSNumber).uint64Value
        XCTAssertNotEqual(first, 0)
        XCTAssertNotEqual(second, 0)
        let gap = second > first ? second - first : first - second
        // Main 067d7ec: the gap was the victim's records (a scheduled and a cancelled per row) plus the spy's own.
        XCTAssertGreaterThan(gap, UInt64(1 << 24), "history positions are not sequence numbers: \(first) → \(second)")
        // The position still pages the spy's own history.
        let older = try spyCall("HistoryPage", "tu", ["\(second)", "10"])
        let records = (try? JSONSerialization.jsonObject(with: Data((older.first as? String ?? "").utf8))) as? [[String: Any]] ?? []
        XCTAssertFalse(records.isEmpty, "\(older)")
        XCTAssertTrue(records.allSatisfy { ($0["id"] as? String ?? "").hasPrefix("h:") }, "\(records)")
        // A plain sequence number, as main 067d7ec handed out, is refused.
        let refused = try spyCallFailure("HistoryPage", "tu", ["5", "10"])
        XCTAssertTrue(refused.contains("before must be 0"), refused)
    }
}
