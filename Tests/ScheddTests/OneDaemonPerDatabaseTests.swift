import Foundation
import Glibc
import XCTest

/// CONTRACT v3 §9 "One daemon per database", on the host with real daemons and real private buses:
/// a second `schedd run` on a database a running daemon holds (on another bus, or on the same one)
/// exits 1 naming the holder's PID and bus, and the first keeps serving and showing; a daemon killed
/// with `kill -9` leaves nothing that blocks the next (the flock goes with the process).
final class OneDaemonPerDatabaseTests: XCTestCase {
    func testSecondDaemonOnTheSameDatabase_onAnotherBus_exits1NamingTheFirst_whichKeepsShowing() throws {
        let h = try ScheddHarness(fakeClock: "2026-07-01T08:00:00Z")
        defer { h.tearDown() }
        let other = try TestBus()
        defer { other.stop() }
        let first = try XCTUnwrap(h.daemon?.processIdentifier)

        let refused = try runSecondDaemon(bus: other.address, database: h.databasePath, in: h.directory)
        XCTAssertEqual(refused.status, 1, "a second daemon on the same database must refuse to start: \(refused.stderr)")
        XCTAssertTrue(refused.stderr.contains("PID \(first)"), "names the running daemon's PID: \(refused.stderr)")
        XCTAssertTrue(refused.stderr.contains(h.bus.address), "names the running daemon's bus: \(refused.stderr)")
        XCTAssertTrue(refused.stderr.contains(h.databasePath), refused.stderr)
        // Nobody serves the other bus: a client there finds no daemon (exit 3), and nothing was shown there.
        let onOther = try runProcess(Build.schedd, ["list", "--bus", other.address])
        XCTAssertEqual(onOther.status, 3, onOther.stderr)
        XCTAssertTrue(refused.stdout.isEmpty, "the refused daemon showed something: \(refused.stdout)")

        // The case: five pushed to the first daemon are all shown by it.
        for n in 1...5 { _ = try h.push(localPush(id: "n\(n)", at: "2026-07-01T08:30:00Z")) }
        try h.advance("1h")
        XCTAssertEqual(h.shown.compactMap { $0["id"] as? String }.sorted(), ["n1", "n2", "n3", "n4", "n5"])
        XCTAssertEqual(try String(contentsOfFile: h.databasePath + ".lock", encoding: .utf8),
                       "pid \(first)\nbus the bus at \(h.bus.address)\n")
    }

    func testSecondDaemonOnTheSameBusAndDatabase_exits1BeforeTouchingEither() throws {
        let h = try ScheddHarness(fakeClock: "2026-07-01T08:00:00Z")
        defer { h.tearDown() }
        let first = try XCTUnwrap(h.daemon?.processIdentifier)
        let refused = try runSecondDaemon(bus: h.bus.address, database: h.databasePath, in: h.directory)
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("PID \(first)"), refused.stderr)
        XCTAssertFalse(refused.stderr.contains("previous run did not close"), "it opened the database: \(refused.stderr)")
        _ = try h.push(localPush(id: "still", at: "2026-07-01T08:30:00Z"))
        XCTAssertEqual(try h.list().compactMap { $0["id"] as? String }, ["still"])
    }

    func testKill9_theNextDaemonStarts_onTheSameDatabase_andFindsWhatWasAcknowledged() throws {
        let h = try ScheddHarness(fakeClock: "2026-07-01T08:00:00Z")
        defer { h.tearDown() }
        _ = try h.push(localPush(id: "kept", at: "2026-07-01T09:00:00Z"))
        h.killDaemon()
        try h.startDaemon(fakeClock: "2026-07-01T08:10:00Z")  // throws unless READY=1 comes
        let second = try XCTUnwrap(h.daemon?.processIdentifier)
        XCTAssertEqual(try h.list().compactMap { $0["id"] as? String }, ["kept"])
        XCTAssertTrue(try String(contentsOfFile: h.databasePath + ".lock", encoding: .utf8).hasPrefix("pid \(second)\n"))
        // And a third one is refused by the second, as by the first.
        let refused = try runSecondDaemon(bus: h.bus.address, database: h.databasePath, in: h.directory)
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("PID \(second)"), refused.stderr)
    }

    /// The default database is the same for the user service and a `schedd run` by hand, so the second is
    /// refused: `~/.local/state/schedd`, or `~/.config/schedd` where an earlier user unit's StateDirectory=
    /// put it under systemd < 254 (found on systemd 252: the service and a hand-started daemon were on two
    /// databases, both serving). docs/units.md "Where the database is".
    func testSecondDaemonWithoutDb_findsTheDefaultDatabase_theLegacyConfigOneToo_andIsRefused() throws {
        for relative in [".local/state/schedd/schedd.db", ".config/schedd/schedd.db"] {
            let h = try ScheddHarness(fakeClock: "2026-07-01T08:00:00Z", databaseName: "home/" + relative)
            defer { h.tearDown() }
            let first = try XCTUnwrap(h.daemon?.processIdentifier)
            let home = String(h.databasePath.dropLast(relative.count + 1))
            let refused = try runSecondDaemon(bus: h.bus.address, database: nil, in: h.directory, home: home)
            XCTAssertEqual(refused.status, 1, "\(relative): \(refused.stderr)")
            XCTAssertTrue(refused.stderr.contains("PID \(first)") && refused.stderr.contains(h.databasePath),
                          "\(relative): \(refused.stderr)")
        }
    }

    /// Runs `schedd run` on `bus` and `database` (nil: its default, under `home`) and waits for it to exit,
    /// at most 20 s (a deadline to stop waiting, not a timing assertion: a daemon that starts serving never
    /// exits by itself and is killed then, its status reported as -1).
    private func runSecondDaemon(bus: String, database: String?, in directory: TemporaryDirectory, home: String? = nil) throws
        -> (status: Int32, stdout: String, stderr: String) {
        let out = directory.file("second.stdout"), err = directory.file("second.stderr")
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        _ = FileManager.default.createFile(atPath: err, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Build.schedd)
        process.arguments = ["run", "--bus", bus] + (database.map { ["--db", $0] } ?? [])
            + ["--notifier", "stdout", "--fake-clock", "2026-07-01T08:00:00Z"]
        var env = ProcessInfo.processInfo.environment
        env["TZ"] = "UTC"
        for key in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "JOURNAL_STREAM"] { env.removeValue(forKey: key) }
        if let home {
            env["HOME"] = home
            for key in ["STATE_DIRECTORY", "XDG_STATE_HOME", "XDG_CONFIG_HOME"] { env.removeValue(forKey: key) }
        }
        process.environment = env
        process.standardOutput = FileHandle(forWritingAtPath: out)
        process.standardError = FileHandle(forWritingAtPath: err)
        try process.run()
        let deadline = monotonicMilliseconds() + 20_000
        while process.isRunning && monotonicMilliseconds() < deadline { usleep(20_000) }
        var status: Int32 = -1
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        } else {
            process.waitUntilExit()
            status = process.terminationStatus
        }
        return (status, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
                (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }
}
