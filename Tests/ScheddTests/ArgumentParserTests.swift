@testable import schedd
import ScheddBus
import XCTest

/// The command-line parser against the command table (CONTRACT §6: options before or after
/// positionals, `--json` everywhere, exit code 2 for usage errors, "did you mean").
final class ArgumentParserTests: XCTestCase {
    private struct Case {
        var arguments: [String]
        var command: String
        var options: [String: String]
        var positionals: [String]
        var line: UInt = #line
    }

    func testParse_acceptsOptionsBeforeAndAfterPositionals() throws {
        let cases: [Case] = [
            Case(arguments: ["list"], command: "list", options: [:], positionals: []),
            Case(arguments: ["list", "--json"], command: "list", options: ["json": ""], positionals: []),
            Case(arguments: ["push", "--json", "f.json"], command: "push", options: ["json": ""], positionals: ["f.json"]),
            Case(arguments: ["push", "f.json", "--json"], command: "push", options: ["json": ""], positionals: ["f.json"]),
            Case(arguments: ["push", "-"], command: "push", options: [:], positionals: ["-"]),
            Case(arguments: ["track", "logout", "--data", "{}"], command: "track", options: ["data": "{}"],
                 positionals: ["logout"]),
            Case(arguments: ["track", "--data={\"a\":1}", "logout"], command: "track", options: ["data": "{\"a\":1}"],
                 positionals: ["logout"]),
            Case(arguments: ["cancel", "--run", "run_1", "--json"], command: "cancel",
                 options: ["run": "run_1", "json": ""], positionals: []),
            Case(arguments: ["clock", "advance", "1d", "6h", "--bus", "unix:path=/x"], command: "clock",
                 options: ["bus": "unix:path=/x"], positionals: ["advance", "1d", "6h"]),
            Case(arguments: ["calendar", "--iterations", "3", "Mon..Fri 09:00", "--tz", "Europe/Berlin", "daily"],
                 command: "calendar", options: ["iterations": "3", "tz": "Europe/Berlin"],
                 positionals: ["Mon..Fri 09:00", "daily"]),
            Case(arguments: ["resolve", "--", "--not-an-option"], command: "resolve", options: [:],
                 positionals: ["--not-an-option"]),
            Case(arguments: ["history", "--limit", "5", "--limit", "7"], command: "history", options: ["limit": "7"],
                 positionals: []),
            Case(arguments: ["run", "--fake-clock", "2026-03-08T01:00:00Z", "--notifier", "stdout", "--db", "/tmp/x.db"],
                 command: "run", options: ["fake-clock": "2026-03-08T01:00:00Z", "notifier": "stdout", "db": "/tmp/x.db"],
                 positionals: []),
            Case(arguments: [], command: "help", options: [:], positionals: []),
            Case(arguments: ["--help"], command: "help", options: [:], positionals: []),
            Case(arguments: ["push", "-h"], command: "push", options: ["help": ""], positionals: []),
            // --help skips the positional count check: `schedd track --help` needs no EVENT.
            Case(arguments: ["track", "--help"], command: "track", options: ["help": ""], positionals: []),
        ]
        for c in cases {
            let parsed = try parseArguments(c.arguments)
            XCTAssertEqual(parsed, ParsedArguments(command: c.command, options: c.options, positionals: c.positionals),
                           "\(c.arguments)", line: c.line)
        }
    }

    func testParse_rejectsMisuseWithUsageErrorAndHint() {
        let cases: [(arguments: [String], message: String, line: UInt)] = [
            (["lsit"], "unknown command 'lsit'; did you mean 'list'?", #line),
            (["histroy"], "did you mean 'history'?", #line),
            (["hist"], "did you mean 'history'?", #line),
            (["frobnicate"], "unknown command 'frobnicate' (see 'schedd --help')", #line),
            (["list", "--jsno"], "unknown option '--jsno' for 'schedd list'; did you mean '--json'?", #line),
            (["list", "--limt", "3"], "did you mean '--limit'?", #line),
            (["calendar", "--iteration", "3", "daily"], "did you mean '--iterations'?", #line),
            (["list", "-x"], "unknown option '-x'", #line),
            (["list", "extra"], "unexpected argument 'extra'", #line),
            (["track"], "missing EVENT; usage: schedd track EVENT", #line),
            (["calendar"], "missing SPEC; usage: schedd calendar SPEC...", #line),
            (["history", "--limit"], "option '--limit' needs a value (N)", #line),
            (["list", "--json=yes"], "option '--json' takes no value", #line),
            (["--json"], "expected a command before '--json'", #line),
            (["push", "a", "b"], "unexpected argument 'b'", #line),
        ]
        for c in cases {
            XCTAssertThrowsError(try parseArguments(c.arguments), "\(c.arguments)", line: c.line) { error in
                let failure = error as? CommandFailure
                XCTAssertEqual(failure?.code, .usage, "\(c.arguments)", line: c.line)
                XCTAssertTrue(failure?.message.contains(c.message) == true,
                              "\(c.arguments): '\(failure?.message ?? "")' lacks '\(c.message)'", line: c.line)
            }
        }
    }

    func testEveryCommandTakesJSONAndHelp_andHasItsOwnHelpText() throws {
        for spec in commandTable {
            let help = try parseArguments([spec.name, "--help", "--json"])
            XCTAssertTrue(help.has("help") && help.json, spec.name)
            let text = commandHelp(spec)
            XCTAssertTrue(text.hasPrefix("Usage: schedd \(spec.name)"), text)
            XCTAssertTrue(text.contains("--json"), text)
            for option in spec.options { XCTAssertTrue(text.contains("--" + option.name), "\(spec.name): \(option.name)") }
            XCTAssertTrue(overallHelp().contains("  " + spec.name + " "), spec.name)
        }
    }

    func testCount_rejectsNegativeAndNonNumericValues() throws {
        XCTAssertEqual(try parseArguments(["list", "--limit", "20"]).count("limit", default: nil), 20)
        XCTAssertNil(try parseArguments(["list"]).count("limit", default: nil))
        for bad in ["-1", "ten", "1.5", ""] {
            let parsed = try parseArguments(["list", "--limit=\(bad)"])
            XCTAssertThrowsError(try parsed.count("limit", default: nil), bad) { error in
                XCTAssertEqual((error as? CommandFailure)?.code, .usage)
            }
        }
    }

    func testBusTarget_readsSessionSystemAndAddresses() throws {
        XCTAssertEqual(try BusTarget(option: nil), .session)
        XCTAssertEqual(try BusTarget(option: "session"), .session)
        XCTAssertEqual(try BusTarget(option: "system"), .system)
        XCTAssertEqual(try BusTarget(option: "unix:path=/tmp/bus"), .address("unix:path=/tmp/bus"))
        XCTAssertThrowsError(try BusTarget(option: "sesion"))
    }
}

/// `schedd run` options, checked before anything starts.
final class DaemonOptionsTests: XCTestCase {
    func testOptions_readEveryRunOption() throws {
        let options = try DaemonOptions(parseArguments([
            "run", "--bus", "unix:path=/tmp/b", "--db", "/tmp/x/s.db", "--notifier", "none",
            "--fake-clock", "2026-03-08T01:00:00-05:00", "--tz", "UTC", "--notify-bus", "unix:path=/tmp/n",
        ]))
        XCTAssertEqual(options.bus, .address("unix:path=/tmp/b"))
        XCTAssertEqual(options.databasePath, "/tmp/x/s.db")
        XCTAssertEqual(options.notifier, NotifierKind.none)
        XCTAssertEqual(options.notifyBus, "unix:path=/tmp/n")
        XCTAssertEqual(options.fakeClockStart?.rfc3339, "2026-03-08T06:00:00Z")
        XCTAssertEqual(options.zoneName, "UTC")
        XCTAssertNil(try DaemonOptions(parseArguments(["run"])).notifier)
    }

    func testOptions_rejectBadValuesAsUsageOrInput() throws {
        let cases: [([String], ExitCode)] = [
            (["run", "--notifier", "popup"], .usage),
            (["run", "--fake-clock", "yesterday"], .usage),
            (["run", "--bus", "nowhere"], .usage),
            (["run", "--tz", "Mars/Base"], .rejected),
        ]
        for (arguments, code) in cases {
            XCTAssertThrowsError(try DaemonOptions(parseArguments(arguments)), "\(arguments)") { error in
                XCTAssertEqual((error as? CommandFailure)?.code, code, "\(arguments)")
            }
        }
    }
}
