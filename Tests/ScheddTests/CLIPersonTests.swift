@testable import schedd
import Foundation
import XCTest

/// Issue 18: a command line that never says "done" when it did not do what the person meant. Each
/// test runs the real CLI against the real daemon and asserts exact stdout, stderr and exit status
/// (docs/cli.md states each rule).
final class CLIPersonTests: XCTestCase {
    /// Tue 2026-12-01 18:52 in Berlin (17:52 UTC), as in the issue.
    private let start = "2026-12-01T17:52:00Z"

    private var harnesses: [ScheddHarness] = []

    /// The fixture of most tests here: a fake-clock daemon at `start` in Europe/Berlin, torn down after
    /// the test.
    private func berlinDaemon() throws -> ScheddHarness {
        let h = try ScheddHarness(fakeClock: start, zone: "Europe/Berlin")
        harnesses.append(h)
        return h
    }

    override func tearDown() {
        for h in harnesses { h.tearDown() }
        harnesses = []
    }

    private func run(_ h: ScheddHarness, _ arguments: [String], stdin: String? = nil, file: StaticString = #filePath,
                     line: UInt = #line, status: Int32, stdout: String = "", stderr: String = "") throws {
        let result = try h.cli(arguments, stdin: stdin)
        XCTAssertEqual(result.status, status, "schedd \(arguments): \(result.stderr)", file: file, line: line)
        XCTAssertEqual(result.stdout, stdout, "schedd \(arguments) stdout", file: file, line: line)
        XCTAssertEqual(result.stderr, stderr, "schedd \(arguments) stderr", file: file, line: line)
    }

    /// Item 1: a time of day alone is its next occurrence (at(1)); past times, a past --until and a
    /// calendar with no elapse left are errors (exit 1) naming the problem and the fix.
    func testAdd_readsATimeOfDayAsItsNextOccurrence_andRefusesWhatWillNotHappen() throws {
        let h = try berlinDaemon()
        try run(h, ["add", "Tea", "--at", "09:00", "--id", "tea"], status: 0,
                stdout: "tea: scheduled, next Wed 2026-12-02 09:00:00 CET\n")
        try run(h, ["add", "Tea", "--at", "20:00", "--id", "tea2"], status: 0,
                stdout: "tea2: scheduled, next Tue 2026-12-01 20:00:00 CET\n")
        let now = "now is Tue 2026-12-01 18:52:00 CET"
        try run(h, ["add", "Tea", "--at", "today 09:00"], status: 1,
                stderr: "schedd: --at: 'today 09:00' is in the past (Tue 2026-12-01 09:00:00 CET; \(now)): "
                    + "give a later time (e.g. --at 'tomorrow 09:00'), or --in SPAN\n")
        try run(h, ["add", "Tea", "--at", "2020-01-01 10:00"], status: 1,
                stderr: "schedd: --at: '2020-01-01 10:00' is in the past (Wed 2020-01-01 10:00:00 CET; \(now)): "
                    + "give a later time (e.g. --at 'tomorrow 09:00'), or --in SPAN\n")
        try run(h, ["add", "Tea", "--calendar", "daily", "--until", "2020-01-01"], status: 1,
                stderr: "schedd: --until: '2020-01-01' is in the past (Wed 2020-01-01 00:00:00 CET; \(now)): "
                    + "give a later --until, or none\n")
        try run(h, ["add", "Tea", "--calendar", "2020-01-01"], status: 1,
                stderr: "schedd: --calendar: '2020-01-01' has no elapse after now (Tue 2026-12-01 18:52:00 CET): every "
                    + "time it names is past; give one that comes again (check it with: schedd calendar '2020-01-01')\n")
        try run(h, ["add", "Tea", "--calendar", "daily", "--until", "2026-12-01 23:00"], status: 1,
                stderr: "schedd: --until: '2026-12-01 23:00' (Tue 2026-12-01 23:00:00 CET) is before the first elapse of "
                    + "--calendar 'daily' (Wed 2026-12-02 00:00:00 CET): nothing would fire; give a later --until\n")
        // Nothing of the refused ones was stored; push keeps the server semantics: a past at is `missed`.
        XCTAssertEqual(try h.list().compactMap { $0["id"] as? String }, ["tea2", "tea"])
        try run(h, ["push", "-"], stdin: localPush(id: "old", at: "2020-01-01T10:00"), status: 0, stdout: "old: missed\n")
    }

    /// Item 1: `--id` of a tombstoned id is an error naming the cancel (when, why) and the way on;
    /// `--replace` lifts the tombstone; a push under it stays silently `cancelled`.
    func testAdd_withATombstonedID_namesTheCancel_andReplaceLiftsIt() throws {
        let h = try berlinDaemon()
        let standup = ["add", "Standup", "--calendar", "Mon..Fri 09:30", "--cancel-on", "vacation", "--id", "standup"]
        try run(h, standup, status: 0, stdout: "standup: scheduled, next Wed 2026-12-02 09:30:00 CET\n")
        try run(h, ["track", "vacation"], status: 0, stdout: "vacation: cancelled standup\n")
        try run(h, standup, status: 1,
                stderr: "schedd: --id standup: blocked by its cancel on Tue 2026-12-01 18:52:00 CET (event:vacation): a "
                    + "cancelled id stays blocked until Thu 2026-12-31 18:52:00 CET, so that late copies of its pushes stay "
                    + "cancelled; add --replace to lift the block and schedule it, or choose another --id\n")
        try run(h, standup + ["--json"], status: 1,
                stdout: #"{"error":"--id standup: blocked by its cancel on Tue 2026-12-01 18:52:00 CET (event:vacation): a "#
                    + #"cancelled id stays blocked until Thu 2026-12-31 18:52:00 CET, so that late copies of its pushes stay "#
                    + #"cancelled; add --replace to lift the block and schedule it, or choose another --id"}"# + "\n",
                stderr: "schedd: --id standup: blocked by its cancel on Tue 2026-12-01 18:52:00 CET (event:vacation): a "
                    + "cancelled id stays blocked until Thu 2026-12-31 18:52:00 CET, so that late copies of its pushes stay "
                    + "cancelled; add --replace to lift the block and schedule it, or choose another --id\n")
        // The same content again (its push was applied before): --replace forgets that too.
        try run(h, standup + ["--replace"], status: 0, stdout: "standup: scheduled, next Wed 2026-12-02 09:30:00 CET\n")
        // Lifting the block is a state change, and history says so (CONTRACT §5).
        XCTAssertEqual(try h.history().map { "\($0["id"] ?? "") \($0["event"] ?? "") \($0["reason"] ?? "")" },
                       ["standup cancelled event:vacation", "standup unblocked unblock"])
        // A push is for machines: a tombstone blocks it silently.
        try run(h, ["cancel", "standup"], status: 0, stdout: "Cancelled standup.\n")
        try run(h, ["push", "-"], stdin: localPush(id: "standup", at: "2026-12-24T18:00"), status: 0,
                stdout: "standup: cancelled\n")
        // A run's tombstone guards every id of the run; --replace does not lift it.
        try run(h, ["cancel", "--run", "run_7"], status: 0, stdout: "Nothing cancelled.\n")
        try run(h, ["add", "Step", "--in", "5min", "--id", "run_7:a", "--replace"], status: 1,
                stderr: "schedd: --id run_7:a: blocked by the cancel of run 'run_7' on Tue 2026-12-01 18:52:00 CET (run): "
                    + "every id of a cancelled run stays blocked until Thu 2026-12-31 18:52:00 CET, so that late copies of "
                    + "its pushes stay cancelled; choose an id outside run 'run_7' (--replace lifts only an id's own block)\n")
        try run(h, ["add", "Step", "--in", "5min", "--replace"], status: 2,
                stderr: "schedd: --replace goes with --id (a new cli_… id is never blocked)\n")
    }

    /// `add` never answers "done" for what will not happen, also when the time passes between the
    /// clock add reads and the daemon's push: the push's own outcome `missed` is an error (exit 1). On
    /// the real clock `--in 0s --grace 0` is always late by the call's round trip.
    func testAdd_whoseTimePassesBeforeThePushArrives_isRefused() throws {
        let h = try ScheddHarness(fakeClock: nil)
        harnesses.append(h)
        let refusal = "--in 0s: the time had passed by more than its --grace 0 when the daemon received it, so it "
            + "would never be shown (history records it missed): give a later time, or a longer --grace"
        try run(h, ["add", "Now", "--in", "0s", "--grace", "0", "--id", "now"], status: 1, stderr: "schedd: \(refusal)\n")
        try run(h, ["add", "Now", "--in", "0s", "--grace", "0", "--id", "now2", "--json"], status: 1,
                stdout: #"{"error":"\#(refusal)"}"# + "\n", stderr: "schedd: \(refusal)\n")
        XCTAssertEqual(try h.history().map { "\($0["id"] ?? "") \($0["event"] ?? "")" }, ["now missed", "now2 missed"])
        XCTAssertEqual(try h.list().count, 0)
    }

    /// `add` of a push that was applied before and replaced since answers no "duplicate" (exit 0) for a
    /// time that will not come: it is an error saying so, and --replace schedules it; the same add of
    /// what is pending stays `duplicate` (it will happen).
    func testAdd_ofASupersededPush_isRefused_andReplaceSchedulesIt() throws {
        try checkSupersededAdd(id: "tea", when: ["--at", "09:00"], other: ["--at", "10:00"])
    }

    /// The same for a calendar: told apart by its next elapse, which add computes on the daemon's clock.
    func testAdd_ofASupersededCalendarPush_isRefused_andReplaceSchedulesIt() throws {
        try checkSupersededAdd(id: "teac", when: ["--calendar", "*-*-* 09:00"], other: ["--calendar", "*-*-* 10:00"])
    }

    /// `add TITLE WHEN --id ID` (first due Wed 09:00 CET), then OTHER (10:00): the first again is refused as
    /// superseded, `--replace` schedules it, and once more it is a plain duplicate.
    private func checkSupersededAdd(id: String, when: [String], other: [String], line: UInt = #line) throws {
        let h = try berlinDaemon()
        let add = ["add", "Tea", "--id", id]
        try run(h, add + when, line: line, status: 0, stdout: "\(id): scheduled, next Wed 2026-12-02 09:00:00 CET\n")
        try run(h, add + other, line: line, status: 0, stdout: "\(id): replaced, next Wed 2026-12-02 10:00:00 CET\n")
        try run(h, add + when, line: line, status: 1,
                stderr: "schedd: --id \(id): this very push was applied before and replaced since (pending for Wed "
                    + "2026-12-02 10:00:00 CET): pushes are idempotent, so sending it again changes nothing; add "
                    + "--replace to schedule it again\n")
        try run(h, add + when + ["--replace"], line: line, status: 0,
                stdout: "\(id): replaced, next Wed 2026-12-02 09:00:00 CET\n")
        try run(h, add + when, line: line, status: 0, stdout: "\(id): duplicate, next Wed 2026-12-02 09:00:00 CET\n")
        XCTAssertEqual(try h.list().compactMap { $0["next"] as? String }, ["2026-12-02T08:00:00Z"], line: line)
    }

    /// Item 2: option errors name the option in the person's terms.
    func testAdd_optionErrorsNameTheOption() throws {
        let h = try berlinDaemon()
        try run(h, ["add", "Tea", "--calendar", "daily", "--tz", "Europe/Berln"], status: 1,
                stderr: "schedd: --tz: unknown zone 'Europe/Berln' (did you mean Europe/Berlin?)\n")
        try run(h, ["add", "Tea", "--in", "5min", "--tz", "Europe/Berln"], status: 2,
                stderr: "schedd: --tz goes with --at or --calendar: an --in span is the same in every zone\n")
        try run(h, ["add", "Tea", "--at", "tomorrow 10:00", "--tz", "America/New_York", "--id", "ny"], status: 0,
                stdout: "ny: scheduled, next Wed 2026-12-02 16:00:00 CET\n")
        XCTAssertEqual(try h.list().first?["zone"] as? String, "America/New_York")
        try run(h, ["add", "Tea", "--at", "2026-12-24T18:00Z", "--tz", "Europe/Berlin"], status: 2,
                stderr: "schedd: --tz: --at '2026-12-24T18:00Z' has an offset of its own; drop --tz or the offset\n")
        try run(h, ["add", "Tea", "--at", "+2h", "--tz", "Europe/Berlin"], status: 2,
                stderr: "schedd: --tz: --at '+2h' is counted from now, the same in every zone; drop --tz\n")
        try run(h, ["add", "Tea", "--calendar", "dialy"], status: 1,
                stderr: "schedd: --calendar: 'dialy': unknown word 'dialy' (not a weekday, shorthand, number or '*') at offset 0\n")
        try run(h, ["add", "Tea", "--in", "5min", "--deep-link", "nope"], status: 1,
                stderr: "schedd: --deep-link: must be an absolute URL (scheme:…, e.g. myapp://item/42)\n")
        try run(h, ["add", "Tea", "--in", "5min", "--snooze", "30s"], status: 1,
                stderr: "schedd: --snooze: must be from 60 to 604800 seconds (1 minute to 7 days)\n")
    }

    /// Item 7: `add --snooze SPAN… --deep-link URL --icon NAME` reach the push.
    func testAdd_snoozeDeepLinkAndIcon() throws {
        let h = try berlinDaemon()
        try run(h, ["add", "Tea", "--in", "5min", "--id", "tea", "--snooze", "10min", "--snooze", "1h",
                    "--deep-link", "myapp://item/42", "--icon", "dialog-information", "--json"], status: 0,
                stdout: #"{"id":"tea","status":"scheduled","next":"2026-12-01T17:57:00Z"}"# + "\n")
        try h.advance("5min")
        let lines = try String(contentsOfFile: h.directory.file("stdout.1"), encoding: .utf8).split(separator: "\n")
        let shown = lines.map(String.init).compactMap(parseObject).first { $0["id"] as? String == "tea" }
        XCTAssertEqual(shown?["icon"] as? String, "dialog-information", "\(shown ?? [:])")
        XCTAssertEqual(shown?["deepLink"] as? String, "myapp://item/42", "\(shown ?? [:])")
        XCTAssertEqual(shown?["snoozeSeconds"] as? [Int], [600, 3600], "\(shown ?? [:])")
    }

    /// Item 3: usage errors name what is missing and how to fix it.
    func testUsageErrors_nameWhatIsMissing() throws {
        let h = try berlinDaemon()
        let usage = "usage: schedd add TITLE (--at WHEN | --in SPAN | --calendar SPEC)"
        try run(h, ["add", "--in", "5min"], status: 2, stderr: "schedd: missing TITLE; \(usage)\n")
        try run(h, ["add", "Tea", "--in", "5", "minutes"], status: 2,
                stderr: "schedd: unexpected argument 'minutes': '5 minutes' is one span: quote it (--in '5 minutes')\n")
        try run(h, ["add", "Buy", "milk", "--in", "5min"], status: 2,
                stderr: "schedd: unexpected argument 'milk': 'Buy milk' is one TITLE: quote it; \(usage)\n")
        try run(h, ["add", "Tea", "--at", "tomorrow", "18:00"], status: 2,
                stderr: "schedd: unexpected argument '18:00': 'tomorrow 18:00' is one time: quote it (--at 'tomorrow 18:00')\n")
        try run(h, ["track"], status: 2, stderr: "schedd: missing EVENT; usage: schedd track EVENT\n")
        try run(h, ["clock"], status: 2, stderr: "schedd: missing what to do (show, set, advance, next, sleep, zone); "
                + "usage: schedd clock show | set TIME | advance SPAN | next | sleep SPAN | zone ZONE\n")
        let testbed = try runProcess(Build.schedd, ["testbed", "sh", "-c", "true"])
        XCTAssertEqual(testbed.status, 2)
        XCTAssertEqual(testbed.stdout, "")
        XCTAssertEqual(testbed.stderr, "schedd: testbed runs COMMAND after '--': schedd testbed [OPTIONS] -- sh -c …\n")
    }

    /// Item 3: with no daemon, the error names `schedd run` and `systemctl --user start schedd`, and
    /// whether schedd.service is installed where systemd's user manager looks.
    func testNoDaemon_namesHowToStartOne() throws {
        let bus = try TestBus(config: Build.busConfig)
        defer { bus.stop() }
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let systemUnits = ["/etc/systemd/user", "/usr/local/share/systemd/user", "/usr/share/systemd/user",
                           "/usr/local/lib/systemd/user", "/usr/lib/systemd/user", "/etc/xdg/systemd/user"]
            .map { $0 + "/schedd.service" }.filter { FileManager.default.fileExists(atPath: $0) }
        let environment = ["DBUS_SESSION_BUS_ADDRESS": bus.address, "HOME": home.path, "XDG_CONFIG_HOME": "",
                           "XDG_DATA_HOME": "", "XDG_CONFIG_DIRS": "", "XDG_DATA_DIRS": ""]
        let prefix = "schedd: no schedd daemon answers on the session bus (\(bus.address)): start one with 'schedd run', "
            + "or 'systemctl --user start schedd' "
        let absent = try runProcess(Build.schedd, ["list"], environment: environment)
        XCTAssertEqual(absent.status, 3)
        XCTAssertEqual(absent.stdout, "")
        if let installed = systemUnits.first {
            XCTAssertEqual(absent.stderr, prefix + "(schedd.service is installed: \(installed))\n")
        } else {
            XCTAssertEqual(absent.stderr, prefix + "once schedd.service is installed (none in systemd's user unit "
                           + "directories; scripts/install.sh installs it)\n")
        }
        let units = home.file(".config/systemd/user")
        try FileManager.default.createDirectory(atPath: units, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: units + "/schedd.service", contents: Data("[Unit]\n".utf8)))
        let installed = try runProcess(Build.schedd, ["list"], environment: environment)
        XCTAssertEqual(installed.status, 3)
        XCTAssertEqual(installed.stderr, prefix + "(schedd.service is installed: \(units)/schedd.service)\n")
        let address = try runProcess(Build.schedd, ["list", "--bus", bus.address], environment: environment)
        XCTAssertEqual(address.stderr, "schedd: no schedd daemon answers on the bus at \(bus.address): start one there "
                       + "with 'schedd run --bus \(bus.address)'\n")
    }

    /// Item 2: a push file is one JSON document unless its first line is a push of its own (NDJSON);
    /// a syntax error in a document is reported by line and column, a trailing comma at the comma.
    func testPushFile_oneDocumentOrNDJSON_errorsByLineAndColumn() throws {
        let h = try berlinDaemon()
        let pretty = """
            {
              "bk": {
                "local": {
                  "id": "run_1:a",
                  "at": "2026-12-24T18:00",
                  "title": "Hi",
                }
              }
            }

            """
        try run(h, ["push", "-"], stdin: pretty, status: 1,
                stderr: "schedd: push rejected: standard input, line 6, column 20: a comma before '}': JSON allows none "
                    + "after the last member\n")
        try run(h, ["push", "-"], stdin: pretty.replacingOccurrences(of: "\"Hi\",", with: "\"Hi\""), status: 0,
                stdout: "run_1:a: scheduled, next Thu 2026-12-24 18:00:00 CET\n")
        try run(h, ["push", "-"], stdin: "{\n  \"bk\": {\"local\": {\"id\" \"x\"}}\n}\n", status: 1,
                stderr: "schedd: push rejected: standard input, line 2, column 25: unexpected '\"', expected ':'\n")
        let ndjson = localPush(id: "a", at: "2026-12-24T18:00") + "\n" + "{\"bk\": \n" + localPush(id: "b", at: "2026-12-24T18:00")
        try run(h, ["push", "-"], stdin: ndjson, status: 1,
                stdout: "a: scheduled, next Thu 2026-12-24 18:00:00 CET\nb: scheduled, next Thu 2026-12-24 18:00:00 CET\n",
                stderr: "schedd: push rejected: standard input, line 2, column 7: invalid JSON: unexpected end of input\n")
        try run(h, ["push", "-"], stdin: localPush(id: "c", at: "2026-12-24T18:00") + "\n   {\"bk\" 1}\n", status: 1,
                stdout: "c: scheduled, next Thu 2026-12-24 18:00:00 CET\n",
                stderr: "schedd: push rejected: standard input, line 2, column 10: invalid JSON: unexpected '1', expected ':'\n")
    }

    /// Item 7: `schedd completion <TAB>` offers the shells.
    func testCompletionOfCompletion_offersTheShells() throws {
        let script = completionScript(for: .bash)
        let result = try runProcess("/bin/bash", ["-c", script + """

            COMP_WORDS=(schedd completion ''); COMP_CWORD=2; _schedd; echo "${COMPREPLY[*]}"
            """])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "bash zsh fish\n")
    }

    /// Item 6: `--print-env` saves the shell's DBUS_SESSION_BUS_ADDRESS and `eval "$(schedd testbed
    /// --stop)"` gives it back (or unsets it when there was none), in bash.
    func testTestbed_printEnvAndStop_leaveTheShellsBusAsItWas() throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let script = """
            set -e
            eval "$(schedd testbed --print-env)"
            case "$DBUS_SESSION_BUS_ADDRESS" in "unix:path=$TMPDIR"/schedd-testbed-*) echo testbed-bus ;; *) echo "other $DBUS_SESSION_BUS_ADDRESS" ;; esac
            schedd list
            eval "$(schedd testbed --stop)"
            echo "bus=${DBUS_SESSION_BUS_ADDRESS-unset} pid=${SCHEDD_TESTBED_PID-unset}"
            """
        var env = ProcessInfo.processInfo.environment
        env["PATH"] = Build.directory.path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
        env["TMPDIR"] = scratch.path
        env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/run/user/1000/bus"
        let kept = try runProcess("/bin/bash", ["-c", script], environment: env)
        XCTAssertEqual(kept.status, 0, kept.stderr)
        XCTAssertEqual(kept.stdout, "testbed-bus\nNo pending notifications.\nbus=unix:path=/run/user/1000/bus pid=unset\n")
        XCTAssertEqual(kept.stderr, "")
        env["DBUS_SESSION_BUS_ADDRESS"] = nil
        let unset = try runProcess("/usr/bin/env", ["-u", "DBUS_SESSION_BUS_ADDRESS", "/bin/bash", "-c", script], environment: env)
        XCTAssertEqual(unset.status, 0, unset.stderr)
        XCTAssertEqual(unset.stdout, "testbed-bus\nNo pending notifications.\nbus=unset pid=unset\n")
        let me = ProcessInfo.processInfo.processIdentifier
        let stop = try runProcess(Build.schedd, ["testbed", "--stop"], environment: ["SCHEDD_TESTBED_PID": "\(me)"])
        XCTAssertEqual(stop.status, 3)
        XCTAssertEqual(stop.stdout, "")
        XCTAssertEqual(stop.stderr, "schedd: testbed --stop: process \(me) is not a running schedd testbed\n")
    }

    /// Item 4: `list` and `history` say when other apps' items are hidden; `history --all-apps`.
    func testListings_footerForOtherApps_andHistoryOfEveryApp() throws {
        let h = try berlinDaemon()
        try run(h, ["add", "Tea", "--at", "20:00", "--id", "tea"], status: 0, stdout: "tea: scheduled, next Tue 2026-12-01 20:00:00 CET\n")
        try run(h, ["add", "Other", "--in", "1h", "--id", "o1", "--app", "org.example.Other"], status: 0,
                stdout: "o1: scheduled, next Tue 2026-12-01 19:52:00 CET\n")
        try run(h, ["list"], status: 0, stdout: """
            NEXT                         LEFT     LAST  PASSED  REPEAT  ID   TITLE
            Tue 2026-12-01 20:00:00 CET  1h 8min  n/a   n/a     -       tea  Tea

            1 pending.
            Other apps have 1 pending, not shown: schedd list --all-apps shows them.

            """)
        try run(h, ["cancel", "o1", "--app", "org.example.Other"], status: 0, stdout: "Cancelled o1.\n")
        try run(h, ["history"], status: 0, stdout: """
            No history.
            Other apps have 1 record among the newest 100, not shown: schedd history --all-apps shows them.

            """)
        try run(h, ["history", "--all-apps"], status: 0, stdout: """
            APP                TIME                         EVENT      ID  TITLE  DUE                          LATE  REASON
            org.example.Other  Tue 2026-12-01 18:52:00 CET  cancelled  o1  Other  Tue 2026-12-01 19:52:00 CET  -     cli

            """)
        try run(h, ["history", "--all-apps", "--app", "x.y"], status: 2, stderr: "schedd: --all-apps and --app exclude each other\n")
    }

    /// Items 4 and 7: a snoozed notification is listed (marked, with when it comes back), its re-show
    /// is logged with its real due (the snooze's end, as history records it), and the daemon logs
    /// which notifier it chose.
    func testSnoozed_isListed_andItsReshowLogsTheSnoozesDue() throws {
        let notifyBus = try PrivateBus()
        defer { notifyBus.stop() }
        let server = try RecordingServer(bus: notifyBus)
        defer { server.stop() }
        let h = try ScheddHarness(fakeClock: start, zone: "Europe/Berlin",
                                  notifierArguments: ["--notifier", "desktop", "--notify-bus", notifyBus.address])
        defer { h.tearDown() }
        XCTAssertTrue(h.daemonStderr.contains("schedd: info: notifier: desktop (--notifier desktop), "
                                              + "org.freedesktop.Notifications on the bus at \(notifyBus.address)\n"), h.daemonStderr)
        try run(h, ["add", "Tea", "--in", "5min", "--id", "tea", "--snooze", "10min"], status: 0,
                stdout: "tea: scheduled, next Tue 2026-12-01 18:57:00 CET\n")
        try h.advance("5min")
        XCTAssertTrue(waitUntil(10) { server.calls("Notify").count == 1 }, h.daemonStderr)
        let sid = try XCTUnwrap(server.calls("Notify").first?["reply"] as? Int)
        try server.emitActionInvoked(bus: notifyBus, id: UInt32(sid), key: "schedd-snooze-600")
        XCTAssertTrue(waitUntil(10) { (try? h.history().contains { $0["event"] as? String == "snoozed" }) == true })
        try run(h, ["list"], status: 0, stdout: """
            NEXT                         LEFT   LAST                         PASSED  REPEAT     ID   TITLE
            Tue 2026-12-01 19:07:00 CET  10min  Tue 2026-12-01 18:57:00 CET  now     (snoozed)  tea  Tea

            0 pending, 1 snoozed.

            """)
        try h.advance("10min")
        XCTAssertTrue(waitUntil(10) { server.calls("Notify").count == 2 }, h.daemonStderr)
        // Logged when the server's reply reaches the daemon, which is after the server recorded the call.
        XCTAssertTrue(waitUntil(10) { h.daemonStderr.contains("schedd: info: shown (due 2026-12-01T18:07:00Z, late 0.0s) [id=tea]") },
                      h.daemonStderr)
        let reshow = try h.history().last { $0["event"] as? String == "fired" }
        XCTAssertEqual(reshow?["due"] as? String, "2026-12-01T18:07:00Z")
        try run(h, ["list"], status: 0, stdout: "No pending notifications.\n")
    }

    /// Item 7: with no notification server and no --notifier, the daemon says it chose stdout and why.
    func testNotifierChoice_isLoggedAtStart() throws {
        let h = try ScheddHarness(fakeClock: start, notifierArguments: ["--notify-bus", "$BUS"])
        defer { h.tearDown() }
        XCTAssertTrue(h.daemonStderr.contains("schedd: info: notifier: stdout (no notification server on the bus at "
                                              + "\(h.bus.address); --notifier desktop waits for one)\n"), h.daemonStderr)
    }
}
