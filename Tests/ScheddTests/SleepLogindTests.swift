import Foundation
import TestPrerequisites
import XCTest

/// CONTRACT §11 "Resume" through logind: the real daemon with a fake org.freedesktop.login1
/// (Tests/Support/logind/fake_logind.py) on a private bus given as the system bus
/// (`DBUS_SYSTEM_BUS_ADDRESS`). The fake answers Inhibit with a pipe and logs when schedd closes it.
final class SleepLogindTests: XCTestCase {
    private var systemBus: TestBus!
    private var logind: ChildProcess?
    private var logPath = ""
    private var harness: ScheddHarness!

    override func setUpWithError() throws {
        systemBus = try TestBus()
        logPath = NSTemporaryDirectory() + "schedd-logind-\(UUID().uuidString).jsonl"
        try startLogind()
        harness = try ScheddHarness(fakeClock: "2026-03-02T08:00:00Z",
                                    daemonEnvironment: ["DBUS_SYSTEM_BUS_ADDRESS": systemBus.address])
    }

    override func tearDown() {
        harness?.tearDown()
        logind?.terminate()
        systemBus?.stop()
        try? FileManager.default.removeItem(atPath: logPath)
    }

    private func startLogind() throws {
        if !FileManager.default.fileExists(atPath: logPath) { _ = FileManager.default.createFile(atPath: logPath, contents: nil) }
        let readyBefore = events("ready").count
        logind = try ChildProcess(DesktopHarness.python,
                                  [Build.supportFile("logind/fake_logind.py"), "--address", systemBus.address, "--log", logPath],
                                  quiet: false)
        guard waitUntil(10, { self.events("ready").count > readyBefore }) else {
            throw missingReference("the fake logind did not start (python3-dbus, python3-gi missing?)")
        }
    }

    private func events(_ name: String) -> [[String: Any]] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { parseObject(String($0)) }.filter { $0["event"] as? String == name }
    }

    private func emitPrepareForSleep(_ start: Bool) throws {
        let result = try runProcess("/usr/bin/busctl", ["--address=\(systemBus.address)", "call", "org.freedesktop.login1",
                                                        "/org/schedd/test/Logind", "org.schedd.test.LogindControl",
                                                        "EmitPrepareForSleep", "b", start ? "true" : "false"])
        XCTAssertEqual(result.status, 0, result.stderr)
    }

    private func sleepStatus() throws -> [String: Any] {
        let status = try XCTUnwrap(try harness.json(["status"]) as? [String: Any])
        return try XCTUnwrap(status["sleep"] as? [String: Any])
    }

    func testInhibitor_takenAtStart_releasedBeforeSleep_takenAgainAfterResume() throws {
        XCTAssertTrue(waitUntil { events("inhibit").count == 1 }, "schedd takes a lock at start")
        let first = try XCTUnwrap(events("inhibit").first)
        XCTAssertEqual(first["what"] as? String, "sleep")
        XCTAssertEqual(first["mode"] as? String, "delay")
        XCTAssertEqual(first["who"] as? String, "schedd")
        XCTAssertTrue(events("released").isEmpty)
        XCTAssertTrue(waitUntil { (try? self.sleepStatus()["inhibitor"] as? String) == "held" })
        XCTAssertEqual(try sleepStatus()["source"] as? String, "logind")

        try emitPrepareForSleep(true)
        XCTAssertTrue(waitUntil { events("released").count == 1 }, "the lock is released once schedd is ready to sleep")
        XCTAssertEqual(events("released").first?["n"] as? Int, 1)
        XCTAssertTrue(waitUntil { (try? self.sleepStatus()["lastSleep"] as? String) == "2026-03-02T08:00:00Z" })

        try emitPrepareForSleep(false)
        XCTAssertTrue(waitUntil { events("inhibit").count == 2 }, "taken again after the resume")
        XCTAssertTrue(waitUntil { (try? self.sleepStatus()["inhibitor"] as? String) == "held" })
        XCTAssertEqual(try sleepStatus()["lastResume"] as? String, "2026-03-02T08:00:00Z")
        XCTAssertEqual(events("released").count, 1, "the new lock is held")
    }

    func testLogindRestart_isSurvived_theLockIsTakenFromTheNewInstance() throws {
        XCTAssertTrue(waitUntil { events("inhibit").count == 1 })
        logind?.terminate()
        XCTAssertTrue(waitUntil { (try? self.sleepStatus()["inhibitor"] as? String)?.contains("logind left") == true })
        try startLogind()
        XCTAssertTrue(waitUntil { events("inhibit").count == 2 }, "a new Inhibit to the new logind")
        XCTAssertTrue(waitUntil { (try? self.sleepStatus()["inhibitor"] as? String) == "held" })
        XCTAssertNotNil(harness.daemon, "the daemon is still running")
        XCTAssertTrue(harness.daemon?.isRunning ?? false)
    }

    func testSystemBusLost_isNotFatal() throws {
        XCTAssertTrue(waitUntil { events("inhibit").count == 1 })
        logind?.terminate()
        systemBus.stop()
        XCTAssertTrue(waitUntil { (try? self.sleepStatus()["inhibitor"] as? String)?.contains("system bus went away") == true })
        XCTAssertTrue(harness.daemon?.isRunning ?? false)
        XCTAssertEqual(try sleepStatus()["source"] as? String, "clocks")
    }
}
