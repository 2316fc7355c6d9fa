import Foundation
import Glibc
import XCTest
import TestPrerequisites

/// A full disk for real (CONTRACT §9, "Storage failure"; issue 9 items 4 and 9): the database on a
/// 2 MiB tmpfs filled up with dd, the real daemon on the real clock on a private bus with stock limits.
/// A push fails with the Storage error and stores nothing; the due firing is retried with back-off, so
/// the log stays a handful of lines and the CPU idle; systemd hears STATUS=/ERRNO=; once the fill file
/// is removed the daemon goes on by itself and shows the notification, late.
final class StorageFullTests: XCTestCase {
    private var mountPoint = ""
    private var h: ScheddHarness?

    override func setUpWithError() throws {
        try requirePrerequisite(geteuid() == 0, "needs root to mount a tmpfs")
        h = try ScheddHarness(fakeClock: nil, databaseName: "disk/schedd.db") { dir in
            let point = dir.file("disk")
            try FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)
            let mounted = try runProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", point])
            guard mounted.status == 0 else { throw TestSetupError("mount tmpfs: \(mounted.stderr)") }
            self.mountPoint = point
        }
    }

    override func tearDown() {
        _ = h?.stopDaemon()
        if !mountPoint.isEmpty { _ = try? runProcess("/bin/umount", [mountPoint]) }
        h?.tearDown()
    }

    /// User plus system CPU time of `pid` so far, in seconds (/proc/PID/stat fields 14 and 15).
    private func cpuSeconds(_ pid: pid_t) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return .infinity }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the ")": field 3 (state) is fields[0], so utime (14) is fields[11] and stime (15) fields[12].
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return .infinity }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private func storageLogLines(_ h: ScheddHarness) -> [String] {
        h.daemonStderr.split(separator: "\n").map(String.init).filter { $0.contains("storage") }
    }

    /// Fills the tmpfs to the last byte with dd; returns the fill file's path.
    private func fillTheDisk(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let fill = mountPoint + "/fill"
        _ = try runProcess("/bin/dd", ["if=/dev/zero", "of=\(fill)", "bs=64k"])
        // Full: what dd wrote plus the database fill the 2 MiB (the database and its write-ahead log take about
        // half of it after the schema's ten steps), and less than one 64 KiB block is left.
        XCTAssertGreaterThan((try? FileManager.default.attributesOfItem(atPath: fill)[.size] as? Int) ?? 0, 256 << 10,
                             file: file, line: line)
        let avail = try runProcess("/bin/df", ["--output=avail", "-B1", mountPoint])
        let left = Int(avail.stdout.split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "") ?? -1
        XCTAssertTrue((0..<(64 << 10)).contains(left), "the tmpfs is not full: \(avail.stdout)", file: file, line: line)
        return fill
    }

    /// Four reminders of one app fall due while the disk is full; once it has room the back-off's retry
    /// delivers them late, folded into one summary (CONTRACT §11 "No flood"). Its words must not claim a
    /// cause that did not happen: schedd ran and the clock did not jump. The retry is a due-timer wake,
    /// which used to mark every late batch it found as a clock jump ("4 reminders the clock skipped past").
    func testDiskFull_theCatchUpAfterTheRecovery_isWordedAsDeliveredLate_notAsAClockJump() throws {
        let h = try XCTUnwrap(h)
        let due = Date().addingTimeInterval(3)
        let formatter = ISO8601DateFormatter()
        for i in 1...4 {
            let at = formatter.string(from: due.addingTimeInterval(Double(i) / 10))
            XCTAssertEqual(try h.push(localPush(id: "late:\(i)", at: at, title: "Late \(i)", extra: "\"graceSeconds\":600")).count, 1)
        }
        let fill = try fillTheDisk()
        while Date() < due.addingTimeInterval(1) { usleep(100_000) }
        XCTAssertTrue(h.notify!.wait(for: "ERRNO=28", deadlineSeconds: 20), "received: \(h.notify!.received)")
        XCTAssertTrue(h.shown.isEmpty, "shown while the disk was full: \(h.shown)")

        try FileManager.default.removeItem(atPath: fill)
        XCTAssertTrue(waitUntil(60) { h.shown.contains { $0["id"] as? String == "schedd:folded" } },
                      "no summary after the disk had room again; log:\n\(h.daemonStderr)")
        XCTAssertEqual(h.shown.map { $0["title"] as? String }, ["4 reminders delivered late"])
        let fired = try h.history().filter { $0["event"] as? String == "fired" }
        XCTAssertEqual(fired.count, 4)
        XCTAssertTrue(fired.allSatisfy { $0["folded"] as? Bool == true && ($0["late"] as? Double ?? 0) > 0 }, "\(fired)")
    }

    func testDiskFull_pushFailsCleanly_firingBacksOff_andRecoversByItself() throws {
        let h = try XCTUnwrap(h)
        let pid = try XCTUnwrap(h.daemon?.processIdentifier)
        // A notification due in 4 s, stored while the disk still has room.
        let due = Date().addingTimeInterval(4)
        let dueText = ISO8601DateFormatter().string(from: due)
        XCTAssertEqual(try h.push(localPush(id: "due:1", at: dueText, extra: "\"graceSeconds\":600")).count, 1)

        let fill = try fillTheDisk()

        // A push now fails with the Storage error (exit 3) and nothing of it is stored.
        let body = String(repeating: "b", count: 8000), data = "{\"d\":\"\(String(repeating: "x", count: 16000))\"}"
        let rejected = try h.cli(["push", "-", "--json"], stdin: localPush(id: "full:1", at: "2030-01-01T00:00:00Z",
                                                                         extra: "\"body\":\"\(body)\",\"data\":\(data)"))
        XCTAssertEqual(rejected.status, 3, "push on a full disk: \(rejected.stdout) \(rejected.stderr)")
        XCTAssertTrue(rejected.stdout.contains("full"), rejected.stdout)

        // Past the due instant the firing fails and is retried with back-off, not in a loop.
        while Date() < due { usleep(100_000) }
        let cpuBefore = cpuSeconds(pid), windowStart = ContinuousClock.now
        XCTAssertTrue(h.notify!.wait(for: "ERRNO=28", deadlineSeconds: 20), "received: \(h.notify!.received)")
        // A fixed window on purpose: the CPU the daemon uses over it is what is measured (no busy retry).
        sleep(8)
        let window = secondsSince(windowStart), cpu = cpuSeconds(pid) - cpuBefore
        XCTAssertLessThan(cpu, 0.25 * window, "the daemon burned \(cpu) s of CPU in \(window) s while the disk was full")
        let failing = storageLogLines(h)
        XCTAssertGreaterThanOrEqual(failing.count, 1, h.daemonStderr)
        XCTAssertLessThanOrEqual(failing.count, 4, "log not rate-limited:\n\(failing.prefix(10).joined(separator: "\n"))")
        XCTAssertTrue(failing.first?.contains("storage failure: Push") == true, failing.first ?? "")
        XCTAssertFalse(h.shown.contains { $0["id"] as? String == "due:1" }, "shown although its firing was not recorded")
        XCTAssertTrue(h.notify!.received.contains { $0.hasPrefix("STATUS=Storage failing since") }, "\(h.notify!.received)")

        // Room again: the daemon goes on by itself (the back-off is at most 30 s) and shows it, late.
        try FileManager.default.removeItem(atPath: fill)
        var shown = false
        for _ in 0..<600 where !shown {
            shown = h.shown.contains { $0["id"] as? String == "due:1" }
            if !shown { usleep(100_000) }
        }
        XCTAssertTrue(shown, "not shown after the disk had room again; log:\n\(h.daemonStderr)")
        XCTAssertTrue(h.notify!.wait(for: "ERRNO=0", deadlineSeconds: 10), "received: \(h.notify!.received)")
        let logged = storageLogLines(h)
        print("storage log while full and after:\n" + logged.joined(separator: "\n"))
        XCTAssertTrue(logged.contains { $0.contains("storage recovered") }, h.daemonStderr)
        let history = try h.history()
        let fired = history.first { $0["id"] as? String == "due:1" && $0["event"] as? String == "fired" }
        XCTAssertNotNil(fired, "\(history)")
        XCTAssertGreaterThan((fired?["late"] as? Double) ?? 0, 0, "fired late, after the recovery")
        XCTAssertFalse(try h.list().contains { $0["id"] as? String == "full:1" }, "the failed push was stored")
        XCTAssertFalse(history.contains { $0["id"] as? String == "full:1" })
    }
}
