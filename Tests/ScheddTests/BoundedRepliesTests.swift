import Foundation
import XCTest

/// Bounded replies and requests on a bus with dbus-daemon's stock limits (CONTRACT §9; issue 9 items 5
/// and 9), with the real daemon and CLI: `schedd list` reads every page of a list far larger than one
/// message, ListPage/HistoryPage replies stay within `ReplyBounds`, the v1 List refuses rather than
/// truncates, and `schedd push FILE` splits a batch by bytes so that 60 KiB pushes all arrive.
final class BoundedRepliesTests: XCTestCase {
    /// `busctl --json=short call` of a Scheduler1 method: the reply's values.
    private func call(_ h: ScheddHarness, _ method: String, _ signature: String, _ arguments: String...) throws -> [Any] {
        let result = try runProcess("/usr/bin/busctl", ["--address=\(h.bus.address)", "--json=short", "call",
                                                       "org.schedd.Scheduler1", "/org/schedd/Scheduler1",
                                                       "org.schedd.Scheduler1", method, signature] + arguments)
        XCTAssertEqual(result.status, 0, "\(method): \(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return object?["data"] as? [Any] ?? []
    }

    private func callFailure(_ h: ScheddHarness, _ method: String, _ signature: String, _ arguments: String...) throws -> String {
        let result = try runProcess("/usr/bin/busctl", ["--address=\(h.bus.address)", "call", "org.schedd.Scheduler1",
                                                       "/org/schedd/Scheduler1", "org.schedd.Scheduler1", method,
                                                       signature] + arguments)
        XCTAssertNotEqual(result.status, 0, "\(method) succeeded: \(result.stdout.prefix(200))")
        return result.stderr
    }

    /// NDJSON of `count` pushes, one a minute from 2026-03-09, with titles of `titleBytes` and a
    /// sender-owned root member of `padBytes` (CONTRACT §1: root members other than bk are the sender's).
    private func ndjson(count: Int, titleBytes: Int, padBytes: Int = 0, prefix: String) -> String {
        var lines: [String] = []
        lines.reserveCapacity(count)
        let start = 1_773_014_400  // 2026-03-09T00:00:00Z
        for i in 0..<count {
            let at = Date(timeIntervalSince1970: TimeInterval(start + 60 * (i % 20_000)))
            let title = String(repeating: "t", count: titleBytes - 6) + String(format: "%06d", i)
            let pad = padBytes > 0 ? "\"pad\":\"\(String(repeating: "p", count: padBytes))\"," : ""
            lines.append("{\(pad)\"bk\":{\"local\":{\"id\":\"\(prefix)_\(i)\",\"title\":\"\(title)\","
                         + "\"at\":\"\(ISO8601DateFormatter().string(from: at))\"}}}")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func testList_40000PendingWith1KiBTitles_readsEveryPage_onStockLimits() throws {
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z")
        defer { h.tearDown() }
        let count = 40_000
        let file = h.directory.file("pushes.ndjson")
        try ndjson(count: count, titleBytes: 1024, prefix: "run_1:s").write(toFile: file, atomically: false, encoding: .utf8)
        let pushed = try h.cli(["push", file, "--json"])
        XCTAssertEqual(pushed.status, 0, pushed.stderr)
        XCTAssertEqual(pushed.lines.count, count)

        // The whole list, about 45 MB of JSON, more than any one message may carry.
        let listed = try h.cli(["list", "--json"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertGreaterThan(listed.stdout.utf8.count, 40 << 20)
        let rows = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
        XCTAssertEqual(rows.count, count)
        XCTAssertEqual(Set(rows.compactMap { $0["id"] as? String }).count, count, "every row once")
        let nexts = rows.compactMap { $0["next"] as? String }
        XCTAssertTrue(nexts == nexts.sorted(), "not ordered by next due")
        XCTAssertTrue(rows.allSatisfy { ($0["title"] as? String)?.utf8.count == 1024 }, "1 KiB titles")
        let human = try h.cli(["list"])
        XCTAssertEqual(human.status, 0, human.stderr)
        XCTAssertTrue(human.stdout.hasSuffix("\(count) pending.\n"), String(human.stdout.suffix(200)))
        // --offset and --limit across page boundaries.
        let slice = try h.json(["list", "--offset", "999", "--limit", "1002"]) as? [[String: Any]] ?? []
        XCTAssertEqual(slice.count, 1002)
        XCTAssertTrue(slice.compactMap { $0["id"] as? String } == rows[999..<2001].compactMap { $0["id"] as? String },
                      "--offset 999 --limit 1002 is not rows 999…2000")

        // One ListPage reply stays within 1,000 rows and 1 MiB; its cursor leads to the next page.
        let first = try call(h, "ListPage", "su", "", "0")
        let page = first.first as? String ?? ""
        XCTAssertLessThanOrEqual(page.utf8.count, 1 << 20)
        let pageRows = try JSONSerialization.jsonObject(with: Data(page.utf8)) as? [[String: Any]] ?? []
        XCTAssertGreaterThan(pageRows.count, 100)
        XCTAssertLessThanOrEqual(pageRows.count, 1000)
        XCTAssertTrue(pageRows.compactMap { $0["id"] as? String } == rows.prefix(pageRows.count).compactMap { $0["id"] as? String },
                      "the first page is not the start of the list")
        let cursor = first.last as? String ?? ""
        XCTAssertFalse(cursor.isEmpty)
        let second = try call(h, "ListPage", "su", cursor, "3")
        let secondRows = try JSONSerialization.jsonObject(with: Data((second.first as? String ?? "").utf8)) as? [[String: Any]] ?? []
        XCTAssertEqual(secondRows.compactMap { $0["id"] as? String },
                       rows[pageRows.count..<(pageRows.count + 3)].compactMap { $0["id"] as? String })
        XCTAssertTrue(try callFailure(h, "ListPage", "su", "v1:nonsense", "1").contains("ListPage: after must be"))

        // The v1 List cannot hold them all: an error that says so, and the daemon stays on the bus.
        XCTAssertTrue(try callFailure(h, "List", "uu", "0", "0").contains("read it in pages with ListPage"))
        XCTAssertEqual((try call(h, "List", "uu", "2", "5").first as? String).flatMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [Any] }?.count, 2)
        XCTAssertTrue(h.daemon?.isRunning == true)
        XCTAssertNotNil(try h.json(["clock", "show"]))
    }

    func testPush_1000ValidPushesOf60KiB_fromAFile_allStored_onStockLimits() throws {
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z")
        defer { h.tearDown() }
        let file = h.directory.file("big.ndjson")
        // ~60 KiB each: under the 64 KiB push limit, about 60 MiB in all (twice a stock message).
        try ndjson(count: 1000, titleBytes: 64, padBytes: 60 * 1024, prefix: "big")
            .write(toFile: file, atomically: false, encoding: .utf8)
        let pushed = try h.cli(["push", file, "--json"])
        XCTAssertEqual(pushed.status, 0, pushed.stderr)
        let answers = pushed.lines.compactMap(parseObject)
        XCTAssertEqual(answers.count, 1000)
        XCTAssertTrue(answers.allSatisfy { $0["status"] as? String == "scheduled" }, "\(answers.prefix(3))")
        XCTAssertEqual(try h.list().count, 1000)
    }

    func testHistoryPages_walkBackwards_andTheCLIReadsAcrossPages() throws {
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z")
        defer { h.tearDown() }
        let file = h.directory.file("pushes.ndjson")
        try ndjson(count: 2500, titleBytes: 16, prefix: "h").write(toFile: file, atomically: false, encoding: .utf8)
        XCTAssertEqual(try h.cli(["push", file]).status, 0)
        try h.advance("3d")  // all 2,500 fire (one a minute from 03-09): 2,500 history records
        let history = try h.history(limit: 2400)
        XCTAssertEqual(history.count, 2400)
        XCTAssertEqual(history.first?["id"] as? String, "h_100", "the newest 2,400, oldest first")
        XCTAssertEqual(history.last?["id"] as? String, "h_2499")
        XCTAssertEqual(try h.history(limit: 5000).count, 2500)
        // HistoryPage directly: newest page first, `next` leads to older records, 0 at the end.
        let newest = try call(h, "HistoryPage", "tu", "0", "1000")
        let before = (newest.last as? NSNumber)?.uint64Value ?? 0
        XCTAssertGreaterThan(before, 0)
        let older = try call(h, "HistoryPage", "tu", "\(before)", "1000")
        let oldest = try call(h, "HistoryPage", "tu", "\((older.last as? NSNumber)?.uint64Value ?? 0)", "1000")
        XCTAssertEqual((oldest.last as? NSNumber)?.uint64Value, 0)
        let ids = [oldest, older, newest].flatMap { reply -> [String] in
            let rows = (try? JSONSerialization.jsonObject(with: Data((reply.first as? String ?? "").utf8))) as? [[String: Any]]
            return rows?.compactMap { $0["id"] as? String } ?? []
        }
        XCTAssertEqual(ids.count, 2500)
        XCTAssertTrue(ids == (0..<2500).map { "h_\($0)" }, "pages out of order: \(ids.prefix(3)) … \(ids.suffix(3))")
        XCTAssertTrue(try callFailure(h, "History", "u", "2000").contains("read it in pages with HistoryPage"))
    }
}
