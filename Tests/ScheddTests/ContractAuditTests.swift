import Foundation
import XCTest

/// Rules of the contract that the audit (docs/contract.md, "Audit") found without a test of their own,
/// each driven through the real CLI against the real daemon on a private bus.
final class ContractAuditTests: XCTestCase {
    /// §9 "write replies too": `schedd cancel --run` over more schedules than one reply lists answers
    /// exit 0, a bounded list and `more` counting the rest — and every one of them is cancelled.
    func testCancelRun_overMoreThanOneReplysIds_listsABoundedPart_andCountsTheRest() throws {
        let h = try ScheddHarness(fakeClock: "2026-04-01T08:00:00Z")
        defer { h.tearDown() }
        let total = 1_500
        let lines = (0..<total).map { localPush(id: "big:\($0)", at: "2026-04-01T09:00:00Z") }
        let pushed = try h.cli(["push", "-", "--json"], stdin: lines.joined(separator: "\n") + "\n")
        XCTAssertEqual(pushed.status, 0, pushed.stderr)
        XCTAssertEqual(pushed.lines.count, total)

        let result = try h.cli(["cancel", "--run", "big", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let answer = try XCTUnwrap(parseObject(result.stdout), result.stdout)
        XCTAssertEqual(answer["run"] as? String, "big")
        let listed = try XCTUnwrap(answer["cancelled"] as? [String])
        XCTAssertLessThanOrEqual(listed.count, 1_000, "one reply's worth of ids at most")
        XCTAssertEqual(listed.count + ((answer["more"] as? Int) ?? 0), total, "listed and more count every one")
        XCTAssertTrue(try h.list().isEmpty, "every schedule of the run is cancelled as far as anyone sees")
        // The run's tombstone blocks a later push of the run.
        XCTAssertEqual(try h.push(localPush(id: "big:late", at: "2026-04-01T09:00:00Z")).first?["status"] as? String,
                       "cancelled")
        try h.advance("2h")
        XCTAssertEqual(h.shown.count, 0, "nothing of the run is shown")
    }

    /// §6 and §7: every JSON answer of the CLI table carries the contract's members, instants are
    /// RFC 3339 UTC with `Z` and no zero fraction, and the exit codes are 0 done, 1 rejected, 2 usage,
    /// 3 unreachable.
    func testJSONAnswers_carryTheTablesMembers_andTheExitCodesAreTheContracts() throws {
        let h = try ScheddHarness(fakeClock: "2026-04-01T08:00:00Z", zone: "Europe/Berlin")
        defer { h.tearDown() }
        func members(_ value: Any?, _ expected: Set<String>, _ what: String, line: UInt = #line) {
            let keys = Set((value as? [String: Any])?.keys.map { $0 } ?? [])
            XCTAssertTrue(expected.isSubset(of: keys), "\(what): \(keys.sorted()) lacks \(expected.subtracting(keys).sorted())",
                          line: line)
        }
        func instant(_ value: Any?, line: UInt = #line) {
            let text = value as? String ?? ""
            XCTAssertNotNil(text.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d*[1-9])?Z$"#, options: .regularExpression),
                            "instant '\(text)'", line: line)
        }
        let pushed = try h.push(localPush(id: "run_1:a", at: "2026-04-01T09:00:00Z",
                                          extra: #""cancelOn":["done"],"data":{"k":1}"#))
        members(pushed.first, ["id", "status", "next"], "push")
        instant(pushed.first?["next"])
        _ = try h.push(localPush(id: "run_1:b", calendar: "daily", extra: #""cancelOn":["done"]"#))
        let list = try h.list()
        XCTAssertEqual(list.count, 2)
        for row in list { members(row, ["id", "next", "title", "trigger", "zone", "cancelOn"], "list"); instant(row["next"]) }
        members(try h.json(["track", "done"]), ["event", "cancelled"], "track")
        members(try h.json(["cancel", "run_1:c"]), ["id", "cancelled"], "cancel")
        members(try h.json(["cancel", "--run", "run_2"]), ["run", "cancelled"], "cancel --run")
        let clock = try h.json(["clock", "show"])
        members(clock, ["now", "zone", "fake"], "clock show")
        instant((clock as? [String: Any])?["now"])
        let history = try h.history()
        XCTAssertEqual(history.count, 2)
        for record in history {
            members(record, ["id", "event", "at", "due", "reason", "late", "title", "messageId", "data", "app"], "history")
            instant(record["at"])
        }
        // calendar and resolve need no daemon (no --bus).
        let calendar = try runProcess(Build.schedd, ["calendar", "daily", "nonsense", "--json"], environment: ["TZ": "UTC"])
        XCTAssertEqual(calendar.status, 1, "a rejected spec: exit 1")
        let specs = try JSONSerialization.jsonObject(with: Data(calendar.stdout.utf8)) as? [[String: Any]] ?? []
        XCTAssertEqual(specs.count, 2)
        members(specs.first, ["spec", "normalized", "next"], "calendar")
        members(specs.last, ["spec", "error"], "calendar error")
        let resolve = try runProcess(Build.schedd, ["resolve", "--tz", "America/New_York", "2026-03-08T02:30", "--json"])
        XCTAssertEqual(resolve.status, 0, resolve.stderr)
        let resolved = try JSONSerialization.jsonObject(with: Data(resolve.stdout.utf8)) as? [[String: Any]]
        members(resolved?.first, ["wall", "instant", "offset", "local", "kind"], "resolve")
        XCTAssertEqual(resolved?.first?["kind"] as? String, "gap")

        XCTAssertEqual(try h.cli(["push", "-"], stdin: #"{"bk":{"local":{"id":"x"}}}"#).status, 1, "rejected: 1")
        XCTAssertEqual(try h.cli(["list", "--no-such-option"]).status, 2, "usage: 2")
        let gone = try runProcess(Build.schedd, ["list", "--bus", "unix:path=\(h.directory.file("no-bus"))"], stdin: nil,
                                  environment: [:])
        XCTAssertEqual(gone.status, 3, "unreachable: 3")
    }

    /// §6: options may stand before or after the positional arguments — the same answer either way,
    /// from the real CLI against the daemon.
    func testOptionsBeforeOrAfterThePositionals_giveTheSameAnswer() throws {
        let h = try ScheddHarness(fakeClock: "2026-04-01T08:00:00Z")
        defer { h.tearDown() }
        let before = try h.cli(["add", "--json", "--id", "tea", "--at", "2026-04-01T09:00:00Z", "Tea"])
        let after = try h.cli(["add", "Tea", "--at", "2026-04-01T09:00:00Z", "--id", "tea", "--json"])
        XCTAssertEqual(before.status, 0, before.stderr)
        XCTAssertEqual(after.status, 0, after.stderr)
        XCTAssertEqual(parseObject(before.stdout)?["status"] as? String, "scheduled")
        XCTAssertEqual(parseObject(after.stdout)?["status"] as? String, "duplicate", "the same push, in either order")
        let cancel = try h.cli(["cancel", "--json", "tea"])
        XCTAssertEqual(cancel.status, 0, cancel.stderr)
        XCTAssertEqual(parseObject(cancel.stdout)?["cancelled"] as? [String], ["tea"])
        XCTAssertEqual(try h.cli(["history", "--json", "--limit", "1"]).stdout, try h.cli(["history", "--limit", "1", "--json"]).stdout)
    }
}
