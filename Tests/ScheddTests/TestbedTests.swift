import Foundation
import Glibc
import XCTest

/// `schedd testbed` (CONTRACT §10): the real binary, the real dbus-daemon, COMMAND a real shell.
final class TestbedTests: XCTestCase {
    private var scratch: TemporaryDirectory!

    override func setUpWithError() throws { scratch = try TemporaryDirectory() }
    override func tearDown() { scratch.remove() }

    /// Runs `schedd testbed ARGS -- sh -c SCRIPT` with `schedd` on PATH; TMPDIR is the scratch
    /// directory, so what the testbed leaves behind is visible there.
    private func testbed(_ arguments: [String], script: String, environment: [String: String] = [:]) throws -> CommandResult {
        var env = ["PATH": Build.directory.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
                   "TMPDIR": scratch.path]
        for (key, value) in environment { env[key] = value }
        return try runProcess(Build.schedd, ["testbed"] + arguments + ["--", "sh", "-c", script], environment: env)
    }

    /// The pid owning `name` on the testbed's bus, as COMMAND asks it.
    private let pidOf = { (name: String) in
        "busctl --address=\"$DBUS_SESSION_BUS_ADDRESS\" call org.freedesktop.DBus /org/freedesktop/DBus "
            + "org.freedesktop.DBus GetConnectionUnixProcessID s \(name) | cut -d' ' -f2"
    }

    private func testbedDirectories() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: scratch.path)) ?? []).filter { $0.hasPrefix("schedd-testbed-") }
    }

    private func assertGone(_ pidText: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let pid = pid_t(pidText.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            return XCTFail("no pid in '\(pidText)'", file: file, line: line)
        }
        // The testbed reaps its children: nothing with that pid is left, not even a zombie.
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/proc/\(pid)"), "pid \(pid) still exists", file: file, line: line)
    }

    func testCommandSeesTheBusAndTheFakeClock_andItsStatusIsTheTestbeds() throws {
        let result = try testbed(["--fake-clock", "2026-12-24T08:00:00Z", "--tz", "Europe/Berlin"], script: """
            set -e
            echo '{"bk":{"local":{"id":"run_1:dinner","at":"2026-12-24T18:00","title":"Dinner"}}}' | schedd push --json
            schedd clock advance 8h --json >/dev/null   # 17:00 in Berlin: not yet
            test ! -s "$SCHEDD_TESTBED"
            schedd clock advance 1h --json >/dev/null
            cat "$SCHEDD_TESTBED"
            exit 7
            """)
        XCTAssertEqual(result.status, 7, result.stderr)
        guard result.lines.count == 2 else { return XCTFail("expected two lines: \(result.stdout)") }
        XCTAssertEqual(parseObject(result.lines[0])?["next"] as? String, "2026-12-24T17:00:00Z")
        XCTAssertEqual(parseObject(result.lines[1])?["id"] as? String, "run_1:dinner")
        XCTAssertEqual(parseObject(result.lines[1])?["due"] as? String, "2026-12-24T17:00:00Z")
        XCTAssertEqual(testbedDirectories(), [], "the testbed's directory is removed")
    }

    func testCrashingCommand_teardsDownBusAndDaemon_andExitsWith128PlusSignal() throws {
        let pids = scratch.file("pids")
        let result = try testbed([], script: "\(pidOf("org.schedd.Scheduler1")) > \(pids); "
                                 + "\(pidOf("org.freedesktop.DBus")) >> \(pids); kill -SEGV $$")
        XCTAssertEqual(result.status, 128 + SIGSEGV, result.stderr)
        let lines = try String(contentsOfFile: pids, encoding: .utf8).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, "pids of the daemon and the bus")
        for pid in lines { assertGone(pid) }
        XCTAssertEqual(testbedDirectories(), [])
    }

    func testSIGTERMToTheTestbed_reachesCommand_thenEverythingStops() throws {
        let started = scratch.file("started"), got = scratch.file("got-term"), pids = scratch.file("pids")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Build.schedd)
        process.arguments = ["testbed", "--", "sh", "-c",
                             "trap 'echo TERM > \(got); exit 42' TERM; \(pidOf("org.schedd.Scheduler1")) > \(pids); "
                                + "touch \(started); while :; do sleep 0.05; done"]
        var env = ProcessInfo.processInfo.environment
        env["TMPDIR"] = scratch.path
        process.environment = env
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = ContinuousClock.now + .milliseconds(Int64(Double(20) * 1000))
        while !FileManager.default.fileExists(atPath: started), ContinuousClock.now < deadline, process.isRunning { usleep(10_000) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: started), "COMMAND never started")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 42, "the testbed exits with COMMAND's status")
        XCTAssertEqual(try String(contentsOfFile: got, encoding: .utf8), "TERM\n")
        assertGone(try String(contentsOfFile: pids, encoding: .utf8))
        XCTAssertEqual(testbedDirectories(), [])
    }

    func testADaemonThatWillNotDie_isKilled() throws {
        let pids = scratch.file("pids")
        // A stopped process does not act on SIGTERM: the testbed must fall back to SIGKILL.
        let result = try testbed([], script: "p=$(\(pidOf("org.schedd.Scheduler1"))); echo $p > \(pids); kill -STOP $p")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("did not stop on SIGTERM"), result.stderr)
        assertGone(try String(contentsOfFile: pids, encoding: .utf8))
        XCTAssertEqual(testbedDirectories(), [])
    }

    func testNothingOfThePersonsSessionIsTouched() throws {
        // The person's own session: a bus of theirs and a home directory.
        let personalBus = try TestBus()
        defer { personalBus.stop() }
        let home = scratch.file("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: false)
        let result = try testbed([], script: """
            set -e
            test "$DBUS_SESSION_BUS_ADDRESS" != "\(personalBus.address)"
            echo '{"bk":{"local":{"id":"a","at":"2030-01-01T00:00:00Z","title":"T"}}}' | schedd push --json >/dev/null
            busctl --address='\(personalBus.address)' list --no-legend | grep -c schedd || true
            """, environment: ["DBUS_SESSION_BUS_ADDRESS": personalBus.address, "HOME": home, "XDG_STATE_HOME": home + "/state"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "0\n", "schedd never appears on the person's bus")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: home), [], "nothing is written in HOME")
    }

    func testPrivateBus_hasStockLimitsAndActivatesNothing() throws {
        let result = try testbed(["--keep"], script: """
            cat "$(dirname "$SCHEDD_TESTBED")/bus.conf"
            busctl --address="$DBUS_SESSION_BUS_ADDRESS" call org.freedesktop.Notifications \
                /org/freedesktop/Notifications org.freedesktop.Notifications GetServerInformation 2>&1 || true
            """)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stdout.contains("<limit"), "stock limits: the config sets none")
        XCTAssertFalse(result.stdout.contains("servicedir"), result.stdout)
        XCTAssertTrue(result.stdout.contains("not provided by any .service files"), result.stdout)
        XCTAssertEqual(testbedDirectories().count, 1, "--keep leaves the directory")
        XCTAssertTrue(result.stderr.contains("kept " + scratch.path + "/schedd-testbed-"), result.stderr)
    }

    func testPrintEnvAndStop() throws {
        let script = """
            set -e
            eval "$(schedd testbed --print-env --fake-clock 2026-01-01T00:00:00Z)"
            schedd clock show --json
            dir=$(dirname "$SCHEDD_TESTBED")
            eval "$(schedd testbed --stop)"
            test -d "$dir" && echo left || echo removed
            echo "pid=${SCHEDD_TESTBED_PID-unset}"
            """
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = Build.directory.path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        env["TMPDIR"] = scratch.path
        let result = try runProcess("/bin/sh", ["-c", script], environment: env)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.lines, [#"{"now":"2026-01-01T00:00:00Z","zone":"UTC","fake":true}"#, "removed", "pid=unset"])
    }

    func testUsageErrors() throws {
        for (arguments, message) in [
            (["testbed"], "testbed needs a COMMAND"),
            (["testbed", "--fake-clock", "soon", "--", "true"], "--fake-clock needs an RFC 3339 time"),
            (["testbed", "--notifier", "desktop", "--", "true"], "--notifier needs one of recording, stdout, none"),
            (["testbed", "--print-env", "--", "true"], "runs no COMMAND"),
        ] {
            let result = try runProcess(Build.schedd, arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let unknownZone = try runProcess(Build.schedd, ["testbed", "--tz", "Mars/Olympus", "--", "true"])
        XCTAssertNotEqual(unknownZone.status, 0)
        XCTAssertTrue(unknownZone.stderr.contains("Mars/Olympus"), unknownZone.stderr)
    }
}
