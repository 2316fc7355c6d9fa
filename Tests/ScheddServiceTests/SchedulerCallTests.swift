import Foundation
import ScheddService
import XCTest

/// The typed calls of org.schedd.Scheduler1 (ScheddService; issue 9 item 6): every method decodes from
/// the D-Bus wire format exactly as its signature says, and malformed bodies are errors, never traps.
final class SchedulerCallTests: XCTestCase {
    private func decode(_ member: String, _ values: [WireArguments.Value]) throws -> SchedulerCall {
        var arguments = WireArguments(WireArguments.marshal(values))
        return try SchedulerCall(member: member, arguments: &arguments)
    }

    func testEveryMethod_decodesItsSignature() throws {
        XCTAssertEqual(try decode("Push", [.string("{}")]), .push("{}"))
        XCTAssertEqual(try decode("PushBatch", [.strings(["a", "", "ccc", "dddd"])]), .pushBatch(["a", "", "ccc", "dddd"]))
        XCTAssertEqual(try decode("PushBatch", [.strings([])]), .pushBatch([]))
        XCTAssertEqual(try decode("Track", [.string("ev"), .string("")]), .track(event: "ev", data: nil))
        XCTAssertEqual(try decode("Track", [.string("ev"), .string("{}")]), .track(event: "ev", data: "{}"))
        XCTAssertEqual(try decode("Cancel", [.string("run_1:a")]), .cancel(id: "run_1:a"))
        XCTAssertEqual(try decode("CancelRun", [.string("run_1")]), .cancelRun(run: "run_1"))
        XCTAssertEqual(try decode("List", [.uint32(20), .uint32(5)]), .list(limit: 20, offset: 5))
        XCTAssertEqual(try decode("ListPage", [.string("v1:1:2"), .uint32(7)]), .listPage(after: "v1:1:2", limit: 7))
        XCTAssertEqual(try decode("History", [.uint32(3)]), .history(limit: 3))
        XCTAssertEqual(try decode("HistoryPage", [.uint64(UInt64.max), .uint32(1)]), .historyPage(before: .max, limit: 1))
        XCTAssertEqual(try decode("ClockShow", []), .clockShow)
        XCTAssertEqual(try decode("ClockSet", [.string("2026-03-08T05:00:00Z")]), .clockSet("2026-03-08T05:00:00Z"))
        XCTAssertEqual(try decode("ClockAdvance", [.uint64(4_611_686_018_427_387_903)]),
                       .clockAdvance(microseconds: 4_611_686_018_427_387_903))
        XCTAssertEqual(try decode("ClockZone", [.string("Europe/Berlin")]), .clockZone("Europe/Berlin"))
        XCTAssertEqual(try decode("CancelReport", [.string("a")]), .cancelReport(id: "a"))
        XCTAssertEqual(try decode("CancelRunReport", [.string("r")]), .cancelRunReport(run: "r"))
        XCTAssertEqual(try decode("ClockNext", []), .clockNext)
        XCTAssertEqual(try decode("HistoryAllAppsPage", [.uint64(9), .uint32(2)]), .historyAllAppsPage(before: 9, limit: 2))
        XCTAssertEqual(try decode("Tombstone", [.string("standup")]), .tombstone(id: "standup"))
        XCTAssertEqual(try decode("Unblock", [.string("standup")]), .unblock(id: "standup"))
        XCTAssertEqual(try decode("Unblock", [.string("standup")]).writes, true)
        XCTAssertEqual(try decode("Status", []), .status)
        XCTAssertEqual(try decode("ClockSleep", [.uint64(3_600_000_000)]), .clockSleep(microseconds: 3_600_000_000))
        for name in SchedulerCall.methods.map(\.name) where !["ClockShow", "ClockNext", "PendingCount", "PendingCountAllApps", "Subscribe", "SubscribeAllApps", "Status"].contains(name) {
            var empty = WireArguments([])
            XCTAssertThrowsError(try SchedulerCall(member: name, arguments: &empty), "\(name) without arguments")
        }
        XCTAssertEqual(try decode("Push", [.string("{}")]).writes, true)
        XCTAssertEqual(try decode("ListPage", [.string(""), .uint32(0)]).writes, false)
    }

    /// The table matches the methods the daemon serves (the org.schedd.Scheduler1 vtable in C).
    func testMethods_matchTheVtable() throws {
        let vtable = try String(contentsOfFile: SourceTree.file("Sources/CSchedBus/vtable.c"), encoding: .utf8)
        // The first vtable is org.schedd.Scheduler1's; the UnifiedPush ones follow it.
        let scheduler = vtable.components(separatedBy: "SD_BUS_VTABLE_END")[0]
        var served: [String: (input: String, reply: String)] = [:]
        var order: [String] = []
        for line in scheduler.split(separator: "\n") where line.trimmingCharacters(in: .whitespaces).hasPrefix("METHOD(\"") {
            // METHOD("Name", "in", names, "out", names): the quoted strings are the name, the input
            // signature, the (quoted, empty) names of an empty input, and the reply signature last.
            let quoted = line.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 }.map { String($0.element) }
            served[quoted[0]] = (quoted[1], quoted[quoted.count - 1])
            order.append(quoted[0])
        }
        XCTAssertEqual(order, SchedulerCall.methods.map(\.name), "the table lists the vtable's methods in its order")
        for method in SchedulerCall.methods {
            XCTAssertEqual(served[method.name]?.input, method.signature, method.name)
            XCTAssertEqual(served[method.name]?.reply, method.reply, method.name)
            let call = try decode(method.name, WireArguments.sample(method.signature))
            XCTAssertEqual(call.name, method.name)
            XCTAssertEqual(call.method, method)
        }
        // The group commit takes exactly the table's grouped methods, and each of them writes.
        XCTAssertEqual(SchedulerMethod.groupedNames, ["Push", "PushBatch", "Track", "Cancel", "CancelRun"])
        XCTAssertTrue(SchedulerMethod.all.filter(\.grouped).allSatisfy(\.writes))
    }

    func testWireFormat_isLittleEndianAndAligned() {
        // "s" then "t": the u64 is 8-aligned after the 4-byte length, 2 bytes and the NUL.
        XCTAssertEqual(WireArguments.marshal([.string("ab"), .uint64(1)]),
                       [2, 0, 0, 0, 0x61, 0x62, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual(WireArguments.marshal([.strings(["a", "b"])]), [14, 0, 0, 0, 1, 0, 0, 0, 0x61, 0, 0, 0, 1, 0, 0, 0, 0x62, 0])
    }

    func testMalformedBodies_areErrors() {
        let cases: [(String, [UInt8], String)] = [
            ("Push", [], "truncated"),
            ("Push", [5, 0, 0, 0, 0x61], "truncated"),
            ("Push", [1, 0, 0, 0, 0x61, 1], "not terminated"),
            ("Push", [1, 0, 0, 0, 0xFF, 0], "UTF-8"),
            ("Push", [1, 0, 0, 0, 0, 0], "UTF-8"),
            ("Push", [0, 0, 0, 0, 0, 9, 9, 9], "more arguments"),
            ("ClockAdvance", [1, 2, 3], "truncated"),
            ("List", [1, 0, 0, 0], "truncated"),
            ("PushBatch", [0xFF, 0xFF, 0xFF, 0x7F], "64 MiB"),
            ("PushBatch", [9, 0, 0, 0, 1, 0, 0, 0, 0x61, 0], "truncated"),
            ("PushBatch", [5, 0, 0, 0, 1, 0, 0, 0, 0x61, 0], "overrun"),
            ("ListPage", [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0], "padding"),
            ("Frobnicate", [], "unknown method"),
        ]
        for (member, bytes, fragment) in cases {
            var arguments = WireArguments(bytes)
            XCTAssertThrowsError(try SchedulerCall(member: member, arguments: &arguments), "\(member) \(bytes)") { error in
                XCTAssertTrue("\(error)".contains(fragment), "\(member) \(bytes): \(error)")
            }
        }
    }

    func testClockArguments_nameTheRange() {
        let range = "0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999999Z"
        let now = instant(fromTimeText: "2026-03-08T05:00:00Z", in: .utc)!
        XCTAssertEqual(try ClockArguments.advanceTarget(from: now, microseconds: 1_000_000), now.adding(seconds: 1))
        for span: UInt64 in [4_611_686_018_427_387_903, UInt64(Int64.max), UInt64.max] {
            XCTAssertThrowsError(try ClockArguments.advanceTarget(from: now, microseconds: span)) {
                XCTAssertTrue("\($0)".contains(range), "\($0)")
            }
        }
        XCTAssertThrowsError(try ClockArguments.setTarget(nil, text: String(repeating: "x", count: 1 << 20))) {
            XCTAssertLessThan("\($0)".utf8.count, 200, "quotes a bounded prefix")
        }
        XCTAssertThrowsError(try ClockArguments.setTarget(instant(fromTimeText: "9999-12-31T23:59:59-01:00", in: .utc), text: "")) {
            XCTAssertTrue("\($0)".contains("outside the supported range \(range)"), "\($0)")
        }
    }
}

extension WireArguments {
    /// Arguments of `signature` (s, as, u, t) with harmless values.
    static func sample(_ signature: String) -> [Value] {
        var values: [Value] = []
        var rest = Substring(signature)
        while let c = rest.first {
            rest = rest.dropFirst()
            switch c {
            case "s": values.append(.string("x"))
            case "u": values.append(.uint32(1))
            case "t": values.append(.uint64(1))
            case "a": rest = rest.dropFirst(); values.append(.strings(["x"]))
            default: break
            }
        }
        return values
    }
}
