import Foundation
import XCTest

/// Issue 17 item 2: the CLI is a client like any other app — built on ScheddClient's stack
/// (ScheddClientCore: names, error mapping, pagers, the blocking client), with no bus client, no bus
/// names and no error-name table of its own, and without Foundation in its binary (docs/cli.md).
final class ClientStackTests: XCTestCase {
    func testCLISources_haveNoBusClientOrNamesOfTheirOwn() throws {
        let folders = ["Sources/schedd/Client", "Sources/schedd/CLI", "Sources/schedd/Commands", "Sources/schedd/Testbed"]
        var checked = 0
        for folder in folders {
            let directory = Build.sourceFile(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasSuffix(".swift") {
                let text = try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
                checked += 1
                for forbidden in ["BusConnection", "sd_bus_", "\"org.schedd.Scheduler1", "org.freedesktop.DBus.Error."] {
                    XCTAssertFalse(text.contains(forbidden), "\(folder)/\(name) uses \(forbidden): the CLI goes through ScheddClientCore")
                }
            }
        }
        XCTAssertGreaterThan(checked, 20)
        let client = try String(contentsOfFile: Build.sourceFile("Sources/schedd/Client/DaemonSession.swift"), encoding: .utf8)
        XCTAssertTrue(client.contains("ScheddBlockingClient"))
        for gone in ["Sources/schedd/Client/SchedulerClient.swift", "Sources/schedd/Client/PagedReads.swift",
                     "Sources/schedd/Bus/BusNames.swift"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: Build.sourceFile(gone)), gone)
        }
    }

    /// `schedd push` sends ClockShow and Push without waiting for either (docs/cli.md "Start-up cost"). A
    /// duplicate is answered at once, so its reply often arrives in the same read as the Hello's: the CLI
    /// must answer then too. Before `BusConnection.process(until:)` it dispatched that reply and then
    /// waited for a message that never came (13 of 20 runs hung).
    func testPushOfADuplicate_isAnsweredEveryTime_evenWhenItsReplyComesWithTheHellos() throws {
        let h = try ScheddHarness(fakeClock: "2026-04-01T08:00:00Z")
        let push = #"{"bk":{"local":{"id":"dup","title":"Tea","at":"2026-04-02T08:00:00Z"}}}"#
        for (run, json) in [(0, true), (1, false)] + (2..<30).map({ ($0, $0 % 2 == 0) }) {
            let result = try runProcess("/usr/bin/timeout", ["10", Build.schedd, "push", "-", "--bus", h.bus.address]
                                            + (json ? ["--json"] : []), stdin: push, environment: ["TZ": "UTC"])
            XCTAssertEqual(result.status, 0, "run \(run): \(result.status == 124 ? "no answer within 10 s" : result.stderr)")
            let status = run == 0 ? "scheduled" : "duplicate"
            XCTAssertTrue(result.stdout.contains(json ? #""status":"\#(status)""# : "dup: \(status)"), "run \(run): \(result.stdout)")
        }
    }

    func testCLIBinary_doesNotLinkFoundation() throws {
        let ldd = try runProcess("/usr/bin/ldd", [Build.schedd])
        XCTAssertEqual(ldd.status, 0, ldd.stderr)
        XCTAssertTrue(ldd.stdout.contains("libsystemd"), ldd.stdout)
        XCTAssertFalse(ldd.stdout.contains("Foundation"), ldd.stdout)
        // Linked statically, so a process does not map and relocate them (docs/cli.md "Start-up cost").
        XCTAssertFalse(ldd.stdout.contains("libcrypto"), ldd.stdout)
        XCTAssertFalse(ldd.stdout.contains("libsqlite3"), ldd.stdout)
    }
}
