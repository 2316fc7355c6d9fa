import Foundation
import Glibc
import XCTest

/// Durability across `kill -9`, and the real detection paths: a wall-clock step (clock_settime,
/// restored afterwards) and a device-zone file change (inotify).
final class RestartAndRealClockTests: XCTestCase {
    func testLateWithinGraceShown_missedBeyondGrace_acrossAKill9Restart() throws {
        let h = try ScheddHarness(fakeClock: "2026-07-01T08:00:00Z")
        defer { h.tearDown() }
        _ = try h.push(localPush(id: "late", at: "2026-07-01T09:00:00Z", extra: "\"graceSeconds\":600"))
        _ = try h.push(localPush(id: "missed", at: "2026-07-01T09:00:00Z", extra: "\"graceSeconds\":60"))
        _ = try h.push(localPush(id: "later", at: "2026-07-01T20:00:00Z"))
        _ = try h.push(localPush(id: "daily", calendar: "*-*-* 08:30:00 UTC"))
        h.killDaemon()
        // Restarted 5 minutes after the due time: one 300 s late (grace 600) is shown, one is missed;
        // the daily repeating schedule fires once for its missed occurrence, then goes on.
        try h.startDaemon(fakeClock: "2026-07-01T09:05:00Z")
        XCTAssertEqual(h.shown.map { $0["id"] as? String }, ["daily", "late"])
        let history = try h.history()
        let late = history.first { $0["id"] as? String == "late" && $0["event"] as? String == "fired" }
        XCTAssertEqual(late?["late"] as? Double, 300)
        XCTAssertEqual(late?["at"] as? String, "2026-07-01T09:05:00Z")
        XCTAssertEqual(history.first { $0["id"] as? String == "missed" }?["event"] as? String, "missed")
        let pending = try h.list().map { $0["id"] as? String }
        XCTAssertEqual(pending, ["later", "daily"])
        try h.advance("1d")
        XCTAssertEqual(h.shown.map { $0["id"] as? String }, ["daily", "late", "later", "daily"])
    }

    func testDeviceZoneFileChange_isNoticedWithoutRestart() throws {
        // TZ names a zone file in a private TZDIR; replacing that file is a device-zone change.
        let h = try ScheddHarness(fakeClock: "2026-05-31T12:00:00Z", zone: "UTC",
                                  daemonEnvironment: ["TZDIR": "$DIR/zoneinfo", "TZ": "Test/Zone"]) { dir in
            try FileManager.default.createDirectory(atPath: dir.file("zoneinfo/Test"), withIntermediateDirectories: true)
            // Copy bytes, not links: UTC is a relative symlink in Debian's tzdata.
            try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/UTC")).write(to: URL(fileURLWithPath: dir.file("zoneinfo/Test/Zone")))
        }
        defer { h.tearDown() }
        _ = try h.push(localPush(id: "floating", at: "2026-06-01T09:00"))
        XCTAssertEqual(try h.list().first?["next"] as? String, "2026-06-01T09:00:00Z")
        let staged = h.directory.file("zoneinfo/Test/.Zone.new")
        try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/Asia/Tokyo")).write(to: URL(fileURLWithPath: staged))
        XCTAssertEqual(rename(staged, h.directory.file("zoneinfo/Test/Zone")), 0)
        // The daemon reacts in its loop; wait (up to 10 s) for the re-resolved time to show.
        var next: String?
        for _ in 0..<100 {
            next = try h.list().first?["next"] as? String
            if next == "2026-06-01T00:00:00Z" { break }
            usleep(100_000)
        }
        XCTAssertEqual(next, "2026-06-01T00:00:00Z", h.daemonStderr)
    }

    func testRealClock_dueTimerFiresOnTime_lateZero() throws {
        let h = try ScheddHarness(fakeClock: nil)
        defer { h.tearDown() }
        let due = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 2).rounded(.up))
        let dueText = ISO8601DateFormatter().string(from: due)
        _ = try h.push(localPush(id: "soon", at: dueText))
        var shown: [[String: Any]] = []
        for _ in 0..<200 where shown.isEmpty {
            shown = h.shown
            if shown.isEmpty { usleep(50_000) }
        }
        XCTAssertEqual(shown.first?["due"] as? String, dueText, h.daemonStderr)
        XCTAssertEqual(shown.first?["late"] as? Double, 0)
        XCTAssertEqual(try h.history().first?["late"] as? Double, 0)
    }

    func testWallClockStep_onTheRealClock_isDetectedAtOnce_andLateIsShown() throws {
        guard getuid() == 0 else {
            XCTFail("stepping the wall clock needs root (clock_settime)")
            return
        }
        let h = try ScheddHarness(fakeClock: nil)
        defer { h.tearDown() }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let due = Int(now.tv_sec) + 1800
        let dueText = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(due)))
        _ = try h.push(localPush(id: "step", at: dueText, extra: "\"graceSeconds\":7200"))
        XCTAssertTrue(h.shown.isEmpty)
        // Step forward one hour, then restore: measured on CLOCK_MONOTONIC so no time is lost.
        var monotonicStart = timespec()
        clock_gettime(CLOCK_MONOTONIC, &monotonicStart)
        clock_gettime(CLOCK_REALTIME, &now)
        var stepped = now
        stepped.tv_sec += 3600
        XCTAssertEqual(clock_settime(CLOCK_REALTIME, &stepped), 0)
        defer {
            var monotonicEnd = timespec()
            clock_gettime(CLOCK_MONOTONIC, &monotonicEnd)
            var restored = timespec()
            clock_gettime(CLOCK_REALTIME, &restored)
            restored.tv_sec -= 3600
            _ = clock_settime(CLOCK_REALTIME, &restored)
        }
        var shown: [[String: Any]] = []
        for _ in 0..<100 where shown.isEmpty {
            shown = h.shown
            if shown.isEmpty { usleep(50_000) }
        }
        XCTAssertEqual(shown.map { $0["id"] as? String }, ["step"], h.daemonStderr)
        XCTAssertTrue(h.daemonStderr.contains("wall clock changed"), h.daemonStderr)
        let late = try h.history().first { $0["event"] as? String == "fired" }?["late"] as? Double ?? 0
        XCTAssertGreaterThan(late, 1000)
        XCTAssertLessThan(late, 7200)
    }
}
