@testable import schedd
import Foundation
import XCTest

/// The person-facing commands through the real daemon (CONTRACT §6): `schedd add` with systemd
/// timestamps and spans, human output in the daemon's device zone whatever the CLI's own `TZ`,
/// `list` like `systemctl list-timers`, `history` with local times, `clock next`, `--limit 0`, and
/// `{"error"}` on stdout under `--json` for usage errors and empty input.
final class CLIDaemonOutputTests: XCTestCase {
    /// Sat 2026-03-07 12:00:00 UTC = 07:00 EST; New York springs forward on Sun 2026-03-08.
    private let start = "2026-03-07T12:00:00Z"

    /// The CLI on `h`'s bus with a `TZ` of its own (not the daemon's).
    private func cli(_ h: ScheddHarness, _ arguments: [String], tz: String = "UTC", stdin: String? = nil) throws -> CommandResult {
        try runProcess(Build.schedd, arguments + ["--bus", h.bus.address], stdin: stdin, environment: ["TZ": tz])
    }

    private func addJSON(_ h: ScheddHarness, _ arguments: [String], file: StaticString = #filePath,
                         line: UInt = #line) throws -> [String: Any] {
        let result = try cli(h, ["add"] + arguments + ["--json"])
        XCTAssertEqual(result.status, 0, "add \(arguments): \(result.stdout) \(result.stderr)", file: file, line: line)
        return parseObject(result.lines.first ?? "") ?? [:]
    }

    func testAdd_readsPushTimesSystemdTimestampsSpansAndCalendars_inTheDaemonsZone() throws {
        let h = try ScheddHarness(fakeClock: start, zone: "America/New_York")
        defer { h.tearDown() }
        // tomorrow is Sun 2026-03-08: 18:00 there is EDT (the change was at 02:00).
        XCTAssertEqual(try addJSON(h, ["Dinner", "--at", "tomorrow 18:00"])["next"] as? String, "2026-03-08T22:00:00Z")
        let tea = try addJSON(h, ["Tea", "--in", "25min"])
        XCTAssertEqual(tea["next"] as? String, "2026-03-07T12:25:00Z")
        XCTAssertEqual(tea["status"] as? String, "scheduled")
        XCTAssertTrue((tea["id"] as? String)?.hasPrefix("cli_") == true, "\(tea)")
        XCTAssertEqual(try addJSON(h, ["Standup", "--calendar", "Mon..Fri 09:30", "--cancel-on", "vacation",
                                       "--cancel-on", "sick", "--id", "standup"])["next"] as? String, "2026-03-09T13:30:00Z")
        XCTAssertEqual(try addJSON(h, ["Review", "--at", "Fri 09:00", "--id", "review"])["next"] as? String,
                       "2026-03-13T13:00:00Z")
        XCTAssertEqual(try addJSON(h, ["Epoch", "--at", "@1800000000"])["next"] as? String, "2027-01-15T08:00:00Z")
        XCTAssertEqual(try addJSON(h, ["Wall", "--at", "2026-03-10T08:00", "--urgency", "critical", "--grace", "5min",
                                       "--action", "ok=Got it", "--body", "text"])["next"] as? String, "2026-03-10T12:00:00Z")
        XCTAssertEqual(try addJSON(h, ["Utc", "--at", "2026-03-10 08:00 UTC"])["next"] as? String, "2026-03-10T08:00:00Z")
        // RFC 3339 with a space for the T still floats (sent in the push's T form).
        XCTAssertEqual(try addJSON(h, ["Space", "--at", "2026-03-10 08:00", "--id", "space"])["next"] as? String,
                       "2026-03-10T12:00:00Z")
        XCTAssertEqual(try h.list().first { $0["id"] as? String == "space" }?["floating"] as? Bool, true)
        let standup = try h.list().first { $0["id"] as? String == "standup" }
        XCTAssertEqual(standup?["cancelOn"] as? [String], ["vacation", "sick"])

        // Human answer: the generated id and `next` in the daemon's zone, though the CLI runs in UTC.
        let human = try cli(h, ["add", "Later", "--at", "tomorrow 18:30"])
        XCTAssertEqual(human.status, 0, human.stderr)
        XCTAssertTrue(human.stdout.hasPrefix("cli_"), human.stdout)
        XCTAssertTrue(human.stdout.hasSuffix(": scheduled, next Sun 2026-03-08 18:30:00 EDT\n"), human.stdout)

        for bad in [["X"], ["X", "--at", "tomorrow", "--in", "5min"], ["X", "--in", "soon"], ["X", "--in", "5min", "--urgency", "loud"],
                    ["X", "--in", "5min", "--action", "nope"], ["X", "--in", "5min", "--grace", "1.5s"]] {
            let result = try cli(h, ["add"] + bad + ["--json"])
            XCTAssertEqual(result.status, 2, "add \(bad): \(result.stderr)")
            XCTAssertNotNil(parseObject(result.stdout)?["error"] as? String, "add \(bad) --json: \(result.stdout)")
        }
        let rejected = try cli(h, ["add", "X", "--at", "someday soon", "--json"])
        XCTAssertEqual(rejected.status, 1, rejected.stderr)
        XCTAssertNotNil(parseObject(rejected.stdout)?["error"] as? String)
    }

    func testHumanOutput_namesTimesInTheDaemonsZone_forEveryFormOfTZ() throws {
        for zone in ["America/New_York", "/usr/share/zoneinfo/America/New_York", "EST5EDT,M3.2.0,M11.1.0"] {
            let h = try ScheddHarness(fakeClock: start, zone: zone)
            defer { h.tearDown() }
            let date = try runProcess("/usr/bin/date", ["-d", "@1772884800", "+%a %Y-%m-%d %H:%M:%S %Z"], environment: ["TZ": zone])
            let clock = try cli(h, ["clock", "show"])
            XCTAssertTrue(clock.stdout.hasPrefix(date.stdout.trimmingCharacters(in: .newlines) + " (2026-03-07T12:00:00Z)"),
                          "TZ=\(zone): \(clock.stdout) vs date: \(date.stdout)")
            let pushed = try cli(h, ["push", "-"], stdin: localPush(id: "p", at: "2026-07-04T09:00"))
            XCTAssertEqual(pushed.stdout, "p: scheduled, next Sat 2026-07-04 09:00:00 EDT\n", "TZ=\(zone)")
            let list = try cli(h, ["list"])
            XCTAssertTrue(list.stdout.contains("Sat 2026-07-04 09:00:00 EDT"), "TZ=\(zone): \(list.stdout)")
        }
    }

    func testList_likeListTimers_countsEveryPendingUnderLimit_alignsWideCharacters() throws {
        let h = try ScheddHarness(fakeClock: start, zone: "America/New_York")
        defer { h.tearDown() }
        _ = try addJSON(h, ["Tea", "--in", "25min", "--id", "tea"])
        _ = try addJSON(h, ["Standup", "--calendar", "Mon..Fri 09:30", "--id", "standup"])
        _ = try addJSON(h, ["会議の準備をする", "--at", "2026-03-10T08:00", "--id", "会議:1"])
        _ = try addJSON(h, ["Plain", "--at", "2026-03-11T08:00", "--id", "plain"])
        // Standup fires Mon 09:30 EDT and goes on: LAST/PASSED show it (Tea fired and is gone).
        try h.advance("2d 1h 40min")
        let list = try cli(h, ["list"])
        XCTAssertEqual(list.status, 0, list.stderr)
        let lines = list.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines.first?.split(separator: " ").map(String.init), ["NEXT", "LEFT", "LAST", "PASSED", "REPEAT", "ID", "TITLE"])
        let rows = lines.dropFirst().prefix { !$0.isEmpty }
        XCTAssertEqual(rows.count, 3, list.stdout)
        let standup = rows.first { $0.contains("standup") } ?? ""
        XCTAssertTrue(standup.hasPrefix("Tue 2026-03-10 09:30:00 EDT"), standup)
        XCTAssertTrue(standup.contains("Mon 2026-03-09 09:30:00 EDT  10min ago"), standup)
        XCTAssertTrue(standup.contains("Mon..Fri *-*-* 09:30:00"), standup)
        let plain = rows.first { $0.contains("plain") } ?? ""
        XCTAssertTrue(plain.contains("n/a"), plain)
        // The ID and TITLE columns start at the same display column on every row, CJK or not.
        let header = lines[0]
        let idColumn = displayWidth(String(header[..<header.range(of: "ID")!.lowerBound]))
        let titleColumn = displayWidth(String(header[..<header.range(of: "TITLE")!.lowerBound]))
        for row in rows {
            let id = ["会議:1", "standup", "plain"].first { row.contains($0) }!
            XCTAssertEqual(displayWidth(String(row[..<row.range(of: id)!.lowerBound])), idColumn, row)
            let title = ["会議の準備をする", "Standup", "Plain"].first { row.hasSuffix($0) }!
            XCTAssertEqual(displayWidth(String(row.dropLast(title.count))), titleColumn, row)
        }
        XCTAssertEqual(lines.last(where: { !$0.isEmpty }), "3 pending.")
        let limited = try cli(h, ["list", "--limit", "1"])
        XCTAssertTrue(limited.stdout.hasSuffix("\nShowing 1 of 3 pending.\n"), limited.stdout)
        XCTAssertEqual(try cli(h, ["list", "--limit", "1", "--offset", "1"]).stdout.split(separator: "\n").last,
                       "Showing 1 of 3 pending (from #2).")
        let everything = try h.json(["list", "--limit", "0"]) as? [[String: Any]]
        XCTAssertEqual(everything?.count, 3)
    }

    func testHistory_localTimeTitleLateness_andLimitZeroMeansAll() throws {
        let h = try ScheddHarness(fakeClock: start, zone: "America/New_York")
        defer { h.tearDown() }
        _ = try addJSON(h, ["Tea time", "--in", "25min", "--id", "tea"])
        _ = try addJSON(h, ["Late one", "--at", "2026-03-07T12:30:00Z", "--id", "late", "--grace", "1h"])
        try h.advance("26min")
        _ = try h.json(["clock", "set", "2026-03-07T12:40:00Z"])
        let history = try cli(h, ["history"])
        XCTAssertEqual(history.status, 0, history.stderr)
        let lines = history.lines
        XCTAssertEqual(lines.first?.split(separator: " ").map(String.init), ["TIME", "EVENT", "ID", "TITLE", "DUE", "LATE", "REASON"])
        let tea = lines.first { $0.contains("tea ") } ?? ""
        XCTAssertTrue(tea.hasPrefix("Sat 2026-03-07 07:25:00 EST  fired"), tea)
        XCTAssertTrue(tea.contains("Tea time"), tea)
        XCTAssertTrue(tea.contains("Sat 2026-03-07 07:25:00 EST  0s"), tea)
        let late = lines.first { $0.contains("late ") } ?? ""
        XCTAssertTrue(late.contains("Sat 2026-03-07 07:30:00 EST  10min"), late)
        let all = try h.json(["history", "--limit", "0"]) as? [[String: Any]] ?? []
        XCTAssertEqual(all.count, 2)
        XCTAssertEqual((try h.json(["history", "--limit", "1"]) as? [[String: Any]])?.count, 1)
    }

    func testClockNext_advancesToTheNextDueInstantAndDeliversWhatIsDueThen() throws {
        let h = try ScheddHarness(fakeClock: start, zone: "UTC")
        defer { h.tearDown() }
        _ = try h.push(localPush(id: "b", at: "2026-03-07T15:00:00Z"))
        _ = try h.push(localPush(id: "a1", at: "2026-03-07T13:00:00Z"))
        _ = try h.push(localPush(id: "a2", at: "2026-03-07T13:00:00Z"))
        let first = try h.json(["clock", "next"]) as? [String: Any]
        XCTAssertEqual(first?["now"] as? String, "2026-03-07T13:00:00Z")
        XCTAssertEqual(Set(h.shown.compactMap { $0["id"] as? String }), ["a1", "a2"])
        let second = try cli(h, ["clock", "next"])
        XCTAssertTrue(second.stdout.hasPrefix("Sat 2026-03-07 15:00:00 UTC (2026-03-07T15:00:00Z), zone UTC, fake clock"),
                      second.stdout)
        XCTAssertEqual(h.shown.compactMap { $0["id"] as? String }.last, "b")
        // Nothing pending: the clock stays.
        XCTAssertEqual((try h.json(["clock", "next"]) as? [String: Any])?["now"] as? String, "2026-03-07T15:00:00Z")
        XCTAssertEqual(try cli(h, ["clock", "next", "extra"]).status, 2)
        // clock set takes systemd timestamps, read at the daemon's clock.
        XCTAssertEqual((try h.json(["clock", "set", "+2h"]) as? [String: Any])?["now"] as? String, "2026-03-07T17:00:00Z")
        XCTAssertEqual((try h.json(["clock", "set", "2026-03-08 09:00:00 UTC"]) as? [String: Any])?["now"] as? String,
                       "2026-03-08T09:00:00Z")
        XCTAssertEqual((try h.json(["clock", "set", "@1773000000"]) as? [String: Any])?["now"] as? String,
                       "2026-03-08T20:00:00Z")
    }

    func testCancellingAShownNotification_reportsClosed_andARunCancelAnswersWithTheRun() throws {
        let h = try ScheddHarness(fakeClock: start, zone: "UTC")
        defer { h.tearDown() }
        _ = try h.push(localPush(id: "run_1:a", at: "2026-03-07T12:01:00Z"))
        _ = try h.push(localPush(id: "run_1:b", at: "2026-03-08T12:00:00Z"))
        _ = try h.push(localPush(id: "run_2:c", at: "2026-03-07T12:02:00Z"))
        try h.advance("5min")
        XCTAssertEqual(h.shown.compactMap { $0["id"] as? String }, ["run_1:a", "run_2:c"])
        let cancel = try h.json(["cancel", "run_1:a"]) as? [String: Any]
        XCTAssertEqual(cancel?["id"] as? String, "run_1:a")
        XCTAssertEqual(cancel?["cancelled"] as? [String], [])
        XCTAssertEqual(cancel?["closed"] as? [String], ["run_1:a"])
        let human = try cli(h, ["cancel", "run_1:a"])
        XCTAssertEqual(human.stdout, "Nothing cancelled.\n", "closed only once")
        let closed = try h.history().filter { $0["event"] as? String == "closed" }
        XCTAssertEqual(closed.map { $0["id"] as? String }, ["run_1:a"])
        XCTAssertEqual(closed.first?["reason"] as? String, "cli")
        let run = try h.json(["cancel", "--run", "run_1"]) as? [String: Any]
        XCTAssertEqual(run?["run"] as? String, "run_1")
        XCTAssertEqual(run?["cancelled"] as? [String], ["run_1:b"])
        // A bk.cancel by run answers with "run" and what it closed.
        let lines = try h.push("{\"bk\":{\"cancel\":{\"run\":\"run_2\"}}}")
        XCTAssertEqual(lines.first?["run"] as? String, "run_2")
        XCTAssertNil(lines.first?["id"])
        XCTAssertEqual(lines.first?["status"] as? String, "cancelled")
        XCTAssertEqual(lines.first?["closed"] as? [String], ["run_2:c"])
    }

    func testJSONFailures_printAnErrorObjectOnStdout() throws {
        let h = try ScheddHarness(fakeClock: start, zone: "UTC")
        defer { h.tearDown() }
        for (arguments, status) in [(["list", "--limit", "x"], 2), (["lsit"], 2), (["history", "--bogus"], 2),
                                    (["clock", "fly"], 2), (["cancel"], 2), (["push", "/nonexistent/file"], 1)] {
            let result = try cli(h, arguments + ["--json"])
            XCTAssertEqual(result.status, Int32(status), "\(arguments): \(result.stderr)")
            XCTAssertNotNil(parseObject(result.stdout)?["error"] as? String, "\(arguments): '\(result.stdout)'")
        }
        for empty in ["", "   \n\t\n", "\n"] {
            let result = try cli(h, ["push", "-", "--json"], stdin: empty)
            XCTAssertEqual(result.status, 1, result.stderr)
            XCTAssertNotNil(parseObject(result.stdout)?["error"] as? String, "empty push '\(empty)': '\(result.stdout)'")
        }
    }
}
