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

    func testCLIBinary_doesNotLinkFoundation() throws {
        let ldd = try runProcess("/usr/bin/ldd", [Build.schedd])
        XCTAssertEqual(ldd.status, 0, ldd.stderr)
        XCTAssertTrue(ldd.stdout.contains("libsystemd"), ldd.stdout)
        XCTAssertFalse(ldd.stdout.contains("Foundation"), ldd.stdout)
    }
}
