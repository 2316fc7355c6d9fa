import Foundation
import XCTest

/// `schedd push` streams its input (CONTRACT §6, README "schedd push"): one push when the input is
/// one JSON value, else one per non-empty line, each line at most 64 KiB, answers in input order
/// across batches of 1000, stderr naming the input's line number.
final class PushStreamingTests: XCTestCase {
    /// A push of exactly `bytes` bytes: `localPush` with a sender member padded to fit.
    private func push(id: String, bytes: Int) -> String {
        let bare = localPush(id: id, at: "2026-04-01T09:00:00Z")
        let padding = bytes - bare.utf8.count - "\"pad\":\"\",".utf8.count
        return "{\"pad\":\"" + String(repeating: "p", count: padding) + "\"," + bare.dropFirst()
    }

    func testNDJSON_acrossBatches_answersInOrder_namesLineNumbers_and64KiBIsTheLineLimit() throws {
        let h = try ScheddHarness(fakeClock: "2026-04-01T08:00:00Z")
        defer { h.tearDown() }
        let largest = push(id: "big:ok", bytes: 65_536)
        let tooLarge = push(id: "big:no", bytes: 65_537)
        XCTAssertEqual(largest.utf8.count, 65_536)
        var lines = (0..<2_500).map { localPush(id: "n:\($0)", at: "2026-04-01T09:00:00Z") }
        lines.insert("", at: 1000)                       // line 1001: empty, no answer
        lines.insert(" \t" + largest + "  \r", at: 1500)  // line 1501: spaces around do not count
        lines.insert(tooLarge, at: 2000)                 // line 2001
        // A file, not stdin: answers stream out while input is read, and runProcess writes all of
        // stdin before reading stdout (2.6 MB in, 180 KB out would fill both pipes).
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("pushes.ndjson")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        let result = try h.cli(["push", path, "--json"])
        XCTAssertEqual(result.status, 1, result.stderr)
        let answers = result.lines.compactMap(parseObject)
        XCTAssertEqual(answers.count, 2_502)
        let ids = answers.map { ($0["id"] as? String) ?? ($0["error"] as? String) ?? "?" }
        XCTAssertEqual(ids[999], "n:999")
        XCTAssertEqual(ids[1_000], "n:1000")
        XCTAssertEqual(ids[1_499], "big:ok")
        XCTAssertEqual(ids[1_999], "push: larger than 65536 bytes")
        XCTAssertEqual(ids.last, "n:2499")
        XCTAssertEqual(result.stderr.components(separatedBy: "push rejected").count - 1, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("schedd: push rejected: '\(path)', line 2001: push: larger than 65536 bytes"), result.stderr)
        XCTAssertEqual(try h.list().count, 2_501)
    }

    /// Lines shaped alike skip the CLI's decode (PushCommand.swift `UnknownMemberCheck`): a line that
    /// differs only by an unknown member, or by one hidden in a nested object, is still warned about,
    /// with its line number, across batches and with two PushBatch calls in flight; `data` is free-form.
    func testNDJSON_unknownMembers_warnedForEveryLineThatHasThem() throws {
        let h = try ScheddHarness(fakeClock: "2026-04-01T08:00:00Z")
        defer { h.tearDown() }
        var lines = (0..<2_500).map { localPush(id: "u:\($0)", at: "2026-04-01T09:00:00Z", extra: "\"data\":{\"k\":\($0)}") }
        lines[2] = localPush(id: "u:2", at: "2026-04-01T09:00:00Z", extra: "\"data\":{\"k\":2},\"colour\":\"red\"")
        lines[1_200] = localPush(id: "u:1200", at: "2026-04-01T09:00:00Z", extra: "\"data\":{\"k\":1200,\"colour\":\"red\"}")
        lines[2_401] = localPush(id: "u:2401", at: "2026-04-01T09:00:00Z",
                                 extra: "\"data\":{\"k\":2401},\"actions\":[{\"id\":\"a\",\"title\":\"A\",\"hue\":1}]")
        lines[2_402] = lines[2_402].replacingOccurrences(of: "{\"bk\":{", with: "{\"bk\":{\"shade\":\"x\",")
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("pushes.ndjson")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        let result = try h.cli(["push", path, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.lines.compactMap(parseObject).count, 2_500)
        let warnings = result.stderr.split(separator: "\n").filter { $0.contains("unknown member") }
        XCTAssertEqual(warnings, [
            "schedd: warning: line 3: bk.local.colour: unknown member, ignored",
            "schedd: warning: line 2402: bk.local.actions[0].hue: unknown member, ignored",
            "schedd: warning: line 2403: bk.shade: unknown member, ignored",
        ], result.stderr)
        XCTAssertEqual(try h.list().count, 2_500)
    }

    func testOneValueOverSeveralLines_isOnePush_tooLargeOnceOverTheLimit() throws {
        let h = try ScheddHarness(fakeClock: "2026-04-01T08:00:00Z")
        defer { h.tearDown() }
        func pretty(_ id: String, members: Int) -> String {
            let data = (0..<members).map { "    \"k\($0)\": \"vvvvvvvvvv\"" }.joined(separator: ",\n")
            return "{\n  \"bk\": {\n   \"local\": {\n    \"id\": \"\(id)\",\n    \"title\": \"T\",\n"
                + "    \"at\": \"2026-04-01T09:00:00Z\",\n    \"data\": {\n\(data)\n    }\n  }\n }\n}\n"
        }
        let small = try h.cli(["push", "-", "--json"], stdin: pretty("p:small", members: 100))
        XCTAssertEqual(small.status, 0, small.stderr)
        XCTAssertEqual(small.lines.compactMap(parseObject).first?["status"] as? String, "scheduled")
        let text = pretty("p:big", members: 5_000)
        XCTAssertGreaterThan(text.utf8.count, 65_536)
        let big = try h.cli(["push", "-", "--json"], stdin: text)
        XCTAssertEqual(big.status, 1)
        XCTAssertEqual(big.lines.compactMap(parseObject).map { $0["error"] as? String },
                       ["push: larger than 65536 bytes"], big.stdout)
        XCTAssertEqual(try h.list().map { $0["id"] as? String }, ["p:small"])
    }

    /// A batch's answers are written at once (PushCommand.swift, `StdoutLines`), yet stdout and stderr on
    /// one file (`2>&1`) keep the order of the lines: each warning before its line's answer, a rejection
    /// between the answers around it.
    func testNDJSON_stdoutAndStderrOnOneFile_keepTheOrderOfTheLines() throws {
        let h = try ScheddHarness(fakeClock: "2026-04-01T08:00:00Z")
        defer { h.tearDown() }
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let lines = [localPush(id: "o:1", at: "2026-04-01T09:00:00Z"),
                     localPush(id: "o:2", at: "2026-04-01T09:00:00Z", extra: "\"colour\":\"red\""),
                     "{\"bk\":{\"local\":{\"id\":\"o:3\"}}}",
                     localPush(id: "o:4", at: "2026-04-01T09:00:00Z")]
        let path = dir.file("pushes.ndjson"), merged = dir.file("merged")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        let result = try runProcess("/bin/sh", ["-c", "\"$0\" push \"$1\" --bus \"$2\" > \"$3\" 2>&1",
                                                 Build.schedd, path, h.bus.address, merged], environment: ["TZ": "UTC"])
        XCTAssertEqual(result.status, 1, "one line is rejected")
        let out = try String(contentsOfFile: merged, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(out.count, 5, out.joined(separator: "\n"))
        guard out.count == 5 else { return }
        XCTAssertTrue(out[0].hasPrefix("o:1: scheduled"), out[0])
        XCTAssertEqual(out[1], "schedd: warning: line 2: bk.local.colour: unknown member, ignored")
        XCTAssertTrue(out[2].hasPrefix("o:2: scheduled"), out[2])
        XCTAssertTrue(out[3].hasPrefix("schedd: push rejected: '\(path)', line 3: "), out[3])
        XCTAssertTrue(out[4].hasPrefix("o:4: scheduled"), out[4])
    }

}
