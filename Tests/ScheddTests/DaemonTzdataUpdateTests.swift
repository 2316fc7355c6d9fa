import Foundation
import Glibc
import XCTest

/// CONTRACT §2 tzdata updates through the real daemon: a TZDIR copy whose Europe/Berlin (the device
/// zone) and Asia/Tokyo (a pinned zone) are replaced by rename with other rules, while the daemon runs
/// and while it is down. Zone files are real TZif files of the system (`Etc/GMT-N`: fixed +N).
final class DaemonTzdataUpdateTests: XCTestCase {
    static func install(_ source: String, as name: String, in directory: String) throws {
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: "/usr/share/zoneinfo/" + source))
        let path = directory + "/zoneinfo/" + name
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: path + ".dpkg-new", contents: bytes))
        XCTAssertEqual(rename(path + ".dpkg-new", path), 0)
    }

    func makeHarness() throws -> ScheddHarness {
        try ScheddHarness(fakeClock: "2026-03-10T05:00:00Z", zone: "Europe/Berlin",
                          daemonEnvironment: ["TZDIR": "$DIR/zoneinfo"]) { dir in
            try Self.install("Etc/GMT-1", as: "Europe/Berlin", in: dir.path)
            try Self.install("Etc/GMT-9", as: "Asia/Tokyo", in: dir.path)
            try Self.install("Etc/GMT", as: "UTC", in: dir.path)
        }
    }

    func nextDue(_ h: ScheddHarness) throws -> [String: String] {
        var next: [String: String] = [:]
        for row in try h.list() { next[row["id"] as? String ?? ""] = row["next"] as? String }
        return next
    }

    /// The daemon notices the rename through inotify: waitUntil polls (bounded, 10 s) for the move.
    func testZoneFilesReplacedWhileRunning_pendingSchedulesMove() throws {
        let h = try makeHarness()
        defer { h.tearDown() }
        _ = try h.push(localPush(id: "floating", at: "2026-03-10T19:00"))
        _ = try h.push(localPush(id: "pinned", at: "2026-03-10T19:00", extra: "\"timeZone\":\"Asia/Tokyo\""))
        XCTAssertEqual(try nextDue(h), ["floating": "2026-03-10T18:00:00Z", "pinned": "2026-03-10T10:00:00Z"])
        try Self.install("Etc/GMT-2", as: "Europe/Berlin", in: h.directory.path)
        try Self.install("Etc/GMT-10", as: "Asia/Tokyo", in: h.directory.path)
        let moved = try waitUntil {
            try nextDue(h) == ["floating": "2026-03-10T17:00:00Z", "pinned": "2026-03-10T09:00:00Z"]
        }
        let now = try nextDue(h)
        XCTAssertTrue(moved, "not re-resolved: \(now); log: \(h.daemonStderr)")
        try h.advance("1d")
        XCTAssertEqual(h.shown.map { $0["due"] as? String }, ["2026-03-10T09:00:00Z", "2026-03-10T17:00:00Z"])
        XCTAssertTrue(h.daemonStderr.contains("the rules of Europe/Berlin changed"), h.daemonStderr)
    }

    func testZoneFileReplacedWhileDown_isAppliedAtStart() throws {
        let h = try makeHarness()
        defer { h.tearDown() }
        _ = try h.push(localPush(id: "floating", at: "2026-03-10T19:00"))
        XCTAssertEqual(h.stopDaemon(), 0)
        try Self.install("Etc/GMT-2", as: "Europe/Berlin", in: h.directory.path)
        try h.startDaemon(fakeClock: "2026-03-10T06:00:00Z")
        XCTAssertEqual(try nextDue(h), ["floating": "2026-03-10T17:00:00Z"])
        try h.advance("12h")
        XCTAssertEqual(h.shown.map { $0["due"] as? String }, ["2026-03-10T17:00:00Z"])
    }
}
