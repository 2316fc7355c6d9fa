import Foundation
import Glibc
import XCTest

/// Test processes never outlive the suite (issue 17 item 6): the harness's bus and daemon are gone after
/// its teardown, and a test process killed with SIGKILL, which runs no teardown at all, leaves neither
/// its dbus-daemon nor its `schedd run` behind (the bus is tethered, `TetheredProcess`; the daemon
/// exits when its bus goes, FaultLoopTests).
final class HarnessTeardownTests: XCTestCase {
    /// Set in the child test process of the SIGKILL test: the file to write the pids into.
    static let pidFileVariable = "SCHEDD_TEST_HARNESS_PIDS"

    /// Normally: a harness's teardown leaves no bus or daemon running. In the child process of
    /// `testKilledTestProcess_leavesNoBusOrDaemonBehind`: starts a harness, writes its pids and waits to be killed.
    func testTeardown_stopsTheBusAndTheDaemon() throws {
        let h = try ScheddHarness(fakeClock: "2026-06-01T08:00:00Z")
        let pids = [h.bus.pid, try XCTUnwrap(h.daemon).processIdentifier]
        if let pidFile = ProcessInfo.processInfo.environment[Self.pidFileVariable] {
            try pids.map(String.init).joined(separator: "\n").write(toFile: pidFile, atomically: true, encoding: .utf8)
            while true { pause() }
        }
        XCTAssertTrue(pids.allSatisfy(isRunning))
        h.tearDown()
        // The bus is waited for; the daemon too (stopDaemon): both are gone when tearDown returns.
        XCTAssertEqual(pids.filter(isRunning), [], "still running after tearDown")
    }

    func testKilledTestProcess_leavesNoBusOrDaemonBehind() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pidFile = directory.file("pids")
        // This test binary again, running only the test above, which stops in the middle. (ChildProcess,
        // not Foundation's Process, whose waitUntilExit can miss the exit of a child with live descendants.)
        let child = try ChildProcess(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
                                     ["ScheddTests.HarnessTeardownTests/testTeardown_stopsTheBusAndTheDaemon"],
                                     environment: ProcessInfo.processInfo.environment.merging([Self.pidFileVariable: pidFile]) { $1 },
                                     stdoutPath: "/dev/null")
        defer { if child.isRunning { kill(child.pid, SIGKILL); child.wait() } }
        XCTAssertTrue(waitUntil(60) { FileManager.default.fileExists(atPath: pidFile) || !child.isRunning },
                      "the child test process never started its harness")
        let pids = try String(contentsOfFile: pidFile, encoding: .utf8).split(separator: "\n").compactMap { pid_t($0) }
        XCTAssertEqual(pids.count, 2)
        XCTAssertTrue(pids.allSatisfy(isRunning), "bus and daemon run while the child test runs")

        XCTAssertEqual(kill(child.pid, SIGKILL), 0)
        child.wait()
        XCTAssertTrue(waitUntil(10) { !pids.contains(where: isRunning) },
                      "left behind by a killed test process: \(pids.filter(isRunning).map(commandLine))")
    }
}

/// True while `pid` exists and is not a zombie (an orphan's zombie waits for a reaper that may never come
/// in a container whose pid 1 does not reap; it holds nothing but its pid).
private func isRunning(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")") else { return false }
    let state = stat[stat.index(close, offsetBy: 2)...].prefix(1)
    return state != "Z" && state != "X"
}

private func commandLine(_ pid: pid_t) -> String {
    let raw = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
    return "\(pid): " + raw.split(separator: "\0").joined(separator: " ")
}
