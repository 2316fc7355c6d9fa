import Foundation
import Glibc
import TestPrerequisites
import XCTest

/// Issue 36: the first ten minutes. scripts/run.sh's daemon reached from a second terminal with
/// nothing set, errors without a session bus that name what works, a per-user install, and the hints
/// at common mistakes — each asserting the exact text a person reads (docs/cli.md).
final class FirstRunTests: XCTestCase {
    private var harnesses: [ScheddHarness] = []
    override func tearDown() {
        for h in harnesses { h.tearDown() }
        harnesses = []
    }

    /// A fake-clock daemon at Tue 2026-12-01 18:52 in Berlin.
    private func berlinDaemon() throws -> ScheddHarness {
        let h = try ScheddHarness(fakeClock: "2026-12-01T17:52:00Z", zone: "Europe/Berlin")
        harnesses.append(h)
        return h
    }

    private func run(_ h: ScheddHarness, _ arguments: [String], stdin: String? = nil, file: StaticString = #filePath,
                     line: UInt = #line, status: Int32, stdout: String = "", stderr: String = "") throws {
        let result = try h.cli(arguments, stdin: stdin)
        XCTAssertEqual(result.status, status, "schedd \(arguments): \(result.stderr)", file: file, line: line)
        XCTAssertEqual(result.stdout, stdout, "schedd \(arguments) stdout", file: file, line: line)
        XCTAssertEqual(result.stderr, stderr, "schedd \(arguments) stderr", file: file, line: line)
    }

    /// `env -i` plus `variables`: a shell with nothing of this process's environment.
    private func fresh(_ command: [String], _ variables: [String: String] = [:]) throws -> CommandResult {
        try runProcess("/usr/bin/env", ["-i"] + variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } + command)
    }

    /// The run.sh files a running scripts/run.sh of this uid would have left outside the test's own
    /// directory: with one, the CLI rightly names it, and the exact texts below cannot hold.
    private func assertNoRunScriptOnThisMachine(file: StaticString = #filePath, line: UInt = #line) {
        let uid = getuid()
        for path in ["/run/user/\(uid)/schedd-run-\(uid).env", "/tmp/schedd-run-\(uid).env"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: path),
                           "\(path) exists: a scripts/run.sh of this user runs on this machine; stop it first", file: file, line: line)
        }
    }

    /// Item 1: run.sh prints a line that reaches its daemon from a fresh shell (nothing set), leaves it
    /// in $XDG_RUNTIME_DIR for the CLI's errors to quote, and takes it away when it stops.
    func testRunScript_printsTheLineThatReachesItsDaemon_fromAFreshShell() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let runtime = dir.file("run")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["-i", "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=\(dir.path)", "XDG_STATE_HOME=\(dir.file("state"))",
                             "XDG_RUNTIME_DIR=\(runtime)", "SCHEDD_BINARY=\(Build.schedd)", "bash",
                             Build.sourceFile("scripts/run.sh"), "--no-demo"]
        let log = dir.file("run.log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: log)
        process.standardOutput = FileHandle(forWritingAtPath: log)
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGTERM); process.waitUntilExit() } }
        // The line appears once the daemon serves: wait for it (the script's own readiness, not a guess).
        var exportLine: String?
        let deadline = ContinuousClock.now + .milliseconds(Int64(Double(60) * 1000))
        while exportLine == nil && ContinuousClock.now < deadline && process.isRunning {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            exportLine = text.split(separator: "\n").first { $0.hasPrefix("  export DBUS_SESSION_BUS_ADDRESS=") }
                .map { String($0.dropFirst(2)) }
            if exportLine == nil { usleep(50_000) }
        }
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        guard let exportLine else { return XCTFail("run.sh printed no export line:\n\(output)") }
        XCTAssertTrue(output.contains("run: schedd serves (PID "), output)
        XCTAssertTrue(exportLine.hasSuffix("; export PATH='\(Build.directory.path)':\"$PATH\""), exportLine)

        // A second terminal: a fresh shell with nothing set, the pasted line, then schedd.
        let second = try fresh(["bash", "-c", exportLine + "; schedd add 'Call mum' --in 2h --id mum && schedd list --json"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stdout.hasPrefix("mum: scheduled, next "), second.stdout)
        XCTAssertTrue(second.stdout.contains(#""id":"mum""#), second.stdout)

        // Without the line, the CLI's error quotes it.
        let envFile = runtime + "/schedd-run-\(getuid()).env"
        let recorded = try String(contentsOfFile: envFile, encoding: .utf8)
        let pid = recorded.split(separator: "\n").first { $0.hasPrefix("SCHEDD_RUN_PID=") }.map { String($0.dropFirst(15)) } ?? "?"
        let address = exportLine.dropFirst("export DBUS_SESSION_BUS_ADDRESS='".count).prefix { $0 != "'" }
        let lost = try fresh([Build.schedd, "list"], ["XDG_RUNTIME_DIR": runtime])
        XCTAssertEqual(lost.status, 3)
        XCTAssertEqual(lost.stderr, "schedd: cannot connect to the session bus (DBUS_SESSION_BUS_ADDRESS is not set): the daemon "
                       + "scripts/run.sh started (PID \(pid)) serves \(address): reach it from this shell with: "
                       + "\(exportLine) (or add --bus '\(address)')\n")
        // ...and sourcing the file reaches it as well.
        let sourced = try fresh(["bash", "-c", ". '\(envFile)' && schedd list --json"])
        XCTAssertEqual(sourced.status, 0, sourced.stderr)

        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertFalse(FileManager.default.fileExists(atPath: envFile), "run.sh left \(envFile) behind")
        XCTAssertEqual(kill(Int32(pid) ?? 0, 0), -1, "run.sh left its daemon \(pid) running")
    }

    /// Item 1: with no session bus at all, `schedd list` and `schedd run` name what works, never a bare
    /// "No medium found" and never `systemctl --user`, which needs that very bus.
    func testNoSessionBus_namesCommandsThatWork() throws {
        assertNoRunScriptOnThisMachine()
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let elsewhere = "or use scripts/run.sh from the source tree (it starts a bus and prints the line that reaches its daemon "
            + "from another terminal), or give --bus ADDRESS\n"
        let list = try fresh([Build.schedd, "list"], ["HOME": dir.path])
        XCTAssertEqual(list.status, 3)
        XCTAssertEqual(list.stderr, "schedd: cannot connect to the session bus: this shell has none (neither DBUS_SESSION_BUS_ADDRESS "
                       + "nor XDG_RUNTIME_DIR is set: no login session): start a shell with a bus of its own, 'dbus-run-session -- "
                       + "bash', and run 'schedd run &' in it, " + elsewhere)
        let daemon = try fresh([Build.schedd, "run", "--db", dir.file("db")], ["HOME": dir.path])
        XCTAssertEqual(daemon.status, 3)
        XCTAssertEqual(daemon.stderr, "schedd: cannot connect to the session bus: this shell has none (neither "
                       + "DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set: no login session): run it on a bus of its own with "
                       + "'dbus-run-session -- schedd run' (only commands started inside that session reach it), " + elsewhere)
        let noSocket = try fresh([Build.schedd, "list"], ["HOME": dir.path, "XDG_RUNTIME_DIR": dir.path])
        XCTAssertEqual(noSocket.stderr, "schedd: cannot connect to the session bus: this shell has none (DBUS_SESSION_BUS_ADDRESS is "
                       + "not set and \(dir.path)/bus does not exist): start a shell with a bus of its own, 'dbus-run-session -- "
                       + "bash', and run 'schedd run &' in it, " + elsewhere)
        // The advice works: the daemon on a bus of its own, a command inside the same session.
        let inside = try fresh(["dbus-run-session", "--", "bash", "-c",
                                "'\(Build.schedd)' run --db '\(dir.file("db"))' --notifier none & "
                                + "for i in $(seq 100); do '\(Build.schedd)' list >/dev/null 2>&1 && break; sleep 0.1; done; "
                                + "'\(Build.schedd)' list; status=$?; kill %1; wait; exit $status"],
                               ["HOME": dir.path, "PATH": "/usr/bin:/bin"])
        XCTAssertEqual(inside.status, 0, inside.stderr)
        XCTAssertEqual(inside.stdout, "No pending notifications.\n")
    }

    /// Item 3: a bare-number --in is seconds, and the answer says so.
    func testAdd_bareNumberIn_isSecondsAndSaysSo() throws {
        let h = try berlinDaemon()
        try run(h, ["add", "Tea", "--in", "5", "--id", "tea"], status: 0,
                stdout: "tea: scheduled, next Tue 2026-12-01 18:52:05 CET (in 5 s)\n")
        try run(h, ["add", "Tea", "--in", "90", "--id", "tea"], status: 0,
                stdout: "tea: replaced, next Tue 2026-12-01 18:53:30 CET (in 90 s)\n")
        try run(h, ["add", "Tea", "--in", "5min", "--id", "tea"], status: 0,
                stdout: "tea: replaced, next Tue 2026-12-01 18:57:00 CET\n")
        try run(h, ["add", "Tea", "--in", "5", "--id", "tea2", "--json"], status: 0,
                stdout: #"{"id":"tea2","status":"scheduled","next":"2026-12-01T17:52:05Z"}"# + "\n")
    }

    /// Item 3: span words systemd refuses (checked: `systemd-analyze timespan` fails on each) get "did
    /// you mean"; nonsense gets no guess.
    func testSpans_systemdRefuses_getDidYouMean() throws {
        let h = try berlinDaemon()
        let usage = "schedd: --in needs a systemd time span (90s, 15min, '1h 30min'), not "
        try run(h, ["add", "Tea", "--in", "5 mins"], status: 2, stderr: usage + "'5 mins'; did you mean '5min'?\n")
        try run(h, ["add", "Tea", "--in", "1 hrs 30 secs"], status: 2, stderr: usage + "'1 hrs 30 secs'; did you mean '1h 30s'?\n")
        try run(h, ["add", "Tea", "--in", "2 mintues"], status: 2, stderr: usage + "'2 mintues'; did you mean '2 minutes'?\n")
        try run(h, ["add", "Tea", "--in", "3 wks"], status: 2, stderr: usage + "'3 wks'; did you mean '3w'?\n")
        try run(h, ["add", "Tea", "--in", "5 xyz"], status: 2, stderr: usage + "'5 xyz'\n")
        try run(h, ["clock", "advance", "2 yrs"], status: 2,
                stderr: "schedd: clock advance needs a systemd time span like 90s, 15min, 2h or '1d 6h', not '2 yrs'; did you mean '2y'?\n")
        try run(h, ["add", "Tea", "--in", "1h", "--grace", "10 mins"], status: 2,
                stderr: "schedd: --grace needs a systemd time span of whole seconds (90s, 15min), not '10 mins'; did you mean '10min'?\n")
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else {
            throw missingReference("systemd-analyze not installed")
        }
        for refused in ["5 mins", "1 hrs 30 secs", "2 mintues", "3 wks", "2 yrs", "10 mins"] {
            let reference = try runProcess("/usr/bin/systemd-analyze", ["timespan", refused])
            XCTAssertNotEqual(reference.status, 0, "systemd accepts '\(refused)': no hint is due")
        }
        for suggested in ["5min", "1h 30s", "2 minutes", "3w", "2y", "10min"] {
            XCTAssertEqual(try runProcess("/usr/bin/systemd-analyze", ["timespan", suggested]).status, 0, suggested)
        }
    }

    /// Item 2: install.sh as a normal user installs into $HOME only, where systemd and the session bus
    /// look, and D-Bus activation (Exec=, no systemd) from those files works
    /// (Tests/Support/install/test-user-install.sh, which switches to an unused uid with setpriv).
    func testInstall_asANormalUser_staysInHome_andActivates() throws {
        guard getuid() == 0 else { throw missingReference("needs root: the test becomes an unused uid with setpriv") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { throw missingReference("setpriv not installed") }
        let result = try runProcess("/bin/bash", [Build.supportFile("install/test-user-install.sh"), Build.schedd])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("test-user-install: all passed"), result.stdout)
    }

    /// Item 3: calendar words systemd lacks get the expression it means, in add, push and calendar.
    func testCalendarWords_getTheExpression() throws {
        let h = try berlinDaemon()
        try run(h, ["add", "Standup", "--calendar", "weekdays 09:30"], status: 1,
                stderr: "schedd: --calendar: 'weekdays 09:30': unknown word 'weekdays' (not a weekday, shorthand, number or '*'; "
                    + "did you mean Mon..Fri?) at offset 0\n")
        try run(h, ["add", "Brunch", "--calendar", "weekends 10:00"], status: 1,
                stderr: "schedd: --calendar: 'weekends 10:00': unknown word 'weekends' (not a weekday, shorthand, number or '*'; "
                    + "did you mean Sat,Sun?) at offset 0\n")
        try run(h, ["push", "-"], stdin: #"{"bk":{"local":{"id":"w","calendar":"workdays 09:00","title":"Work"}}}"#, status: 1,
                stderr: "schedd: push rejected: standard input, line 1: bk.local.calendar: 'workdays 09:00': unknown word "
                    + "'workdays' (not a weekday, shorthand, number or '*'; did you mean Mon..Fri?) at offset 0\n")
        try run(h, ["add", "Standup", "--calendar", "Mon..Fri 09:30", "--id", "standup"], status: 0,
                stdout: "standup: scheduled, next Wed 2026-12-02 09:30:00 CET\n")
    }

    /// Item 3: a rejected push lists the members schedd does not read with the nearest known one; an
    /// accepted one warns with it.
    func testPush_unknownMembers_getTheNearestKnownName() throws {
        let h = try berlinDaemon()
        try run(h, ["push", "-"], stdin: #"{"bk":{"local":{"id":"a","at":"2026-12-24T18:00","titel":"Hi"}}}"#, status: 1,
                stderr: "schedd: push rejected: standard input, line 1: bk.local.title: required\n"
                    + "schedd: bk.local.titel: unknown member (did you mean title?)\n")
        try run(h, ["push", "-", "--json"], stdin: #"{"bk":{"locl":{"id":"a"},"cancle":{"id":"b"}}}"#, status: 1,
                stdout: #"{"error":"bk: one of \"local\" and \"cancel\" is required"}"# + "\n",
                stderr: "schedd: push rejected: standard input, line 1: bk: one of \"local\" and \"cancel\" is required\n"
                    + "schedd: bk.locl: unknown member (did you mean local?)\n"
                    + "schedd: bk.cancle: unknown member (did you mean cancel?)\n")
        try run(h, ["push", "-"], stdin: #"{"bk":{"local":{"id":"b","at":"2026-12-24T18:00","title":"Hi","bdy":"x","colour":"red"}}}"#,
                status: 0, stdout: "b: scheduled, next Thu 2026-12-24 18:00:00 CET\n",
                stderr: "schedd: warning: bk.local.bdy: unknown member, ignored (did you mean body?)\n"
                    + "schedd: warning: bk.local.colour: unknown member, ignored\n")
    }

    /// Item 3: every push-file error names the file and the line — a JSON error on line 1 included.
    func testPushFile_everyErrorNamesTheFileAndLine() throws {
        let h = try berlinDaemon()
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let bad = dir.file("bad.json")
        try #"{"bk":{"local":{"id":"a","at":"2026-12-24T18:00" "title":"Hi"}}}"#.write(toFile: bad, atomically: true, encoding: .utf8)
        try run(h, ["push", bad], status: 1,
                stderr: "schedd: push rejected: '\(bad)', line 1, column 50: invalid JSON: unexpected '\"', expected ',' or '}'\n")
        let ndjson = dir.file("p.ndjson")
        try (#"{"bk":{"local":{"id":"a","at":"2026-12-24T18:00","title":"Hi"}}}"# + "\n"
             + #"{"bk":{"local":{"id":"b","at":"2026-12-24T18:00"}}}"# + "\n" + #"{"bk" 1}"# + "\n")
            .write(toFile: ndjson, atomically: true, encoding: .utf8)
        try run(h, ["push", ndjson], status: 1, stdout: "a: scheduled, next Thu 2026-12-24 18:00:00 CET\n",
                stderr: "schedd: push rejected: '\(ndjson)', line 2: bk.local.title: required\n"
                    + "schedd: push rejected: '\(ndjson)', line 3, column 7: invalid JSON: unexpected '1', expected ':'\n")
        let document = dir.file("doc.json")
        try "\n{\n  \"bk\": {\"local\": {\"id\": \"c\", \"at\": \"2026-12-24T18:00\"}}\n}\n"
            .write(toFile: document, atomically: true, encoding: .utf8)
        try run(h, ["push", document], status: 1, stderr: "schedd: push rejected: '\(document)', line 2: bk.local.title: required\n")
    }

    /// Item 3: `schedd push` reading a terminal says so on stderr (under script(1), a real pty).
    func testPush_readingATerminal_saysItReadsStandardInput() throws {
        let h = try berlinDaemon()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { throw missingReference("script (util-linux) not installed") }
        // script forwards its own end of input to the pty as Ctrl-D: push then reads an empty input.
        let result = try runProcess("/usr/bin/script", ["-qec", "'\(Build.schedd)' push --bus '\(h.bus.address)'", "/dev/null"], stdin: "")
        XCTAssertEqual(result.stdout.replacingOccurrences(of: "\r", with: ""),
                       "schedd: reading pushes from standard input (a terminal): paste one push or NDJSON lines, then Ctrl-D; "
                       + "or give a file: schedd push FILE\nschedd: push: standard input holds no push\n")
        let piped = try h.cli(["push"], stdin: "")
        XCTAssertEqual(piped.stderr, "schedd: push: standard input holds no push\n", "no terminal, no note")
    }
}
