import Foundation
import XCTest

/// `schedd run --history-days N --history-max N` (CONTRACT §5 bounded history), through the real daemon.
final class DaemonRetentionTests: XCTestCase {
    func testHistoryMax_keepsTheNewestRecords() throws {
        let h = try ScheddHarness(fakeClock: "2026-03-08T00:00:00Z",
                                  notifierArguments: ["--notifier", "stdout", "--history-max", "5", "--history-days", "30"])
        defer { h.tearDown() }
        _ = try h.push(localPush(id: "hourly", calendar: "hourly"))
        try h.advance("1d")
        let history = try h.history(limit: 1000)
        XCTAssertEqual(history.count, 5, "\(history)")
        XCTAssertEqual(history.last?["due"] as? String, "2026-03-09T00:00:00Z")
        XCTAssertEqual(h.shown.count, 24, "retention trims history, never what is shown")
    }

    func testRetentionOptions_outOfRange_areUsageErrors() throws {
        for (option, value) in [("--history-days", "29"), ("--history-max", "0"), ("--history-days", "many")] {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let result = try runProcess(Build.schedd, ["run", "--db", directory.file("db"), "--bus", "unix:path=/nonexistent",
                                                       option, value])
            XCTAssertEqual(result.status, 2, "\(option) \(value): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(option), result.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: directory.file("db")), "nothing created")
        }
    }
}
