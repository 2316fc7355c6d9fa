import Foundation
import Glibc
import XCTest
import TestPrerequisites

/// CONTRACT §8 "Quota" (v3, issue 31 item 2) against the floods of the issue, for real: the real daemon
/// with `--max-bytes-per-app 4194304` and its database on a 48 MiB tmpfs. One app pushes 8,000 past-dated
/// notifications with 16 KiB data each (every one answered `missed`) and then cancels 81,000 unknown
/// ids; on 067d7ec the first flood grew the file by ~200 MB and the second by ~42 MB (the disk fills and
/// every app's writes fail). Now a missed push keeps id, digest and due only, the tombstones count, the
/// cancels over the bound are refused naming it, the database stays a few MiB, and another app's pushes
/// go on succeeding.
final class QuotaFloodTests: XCTestCase {
    private var mountPoint = ""
    private var h: ScheddHarness?
    static let flood = "org.example.Flood", victim = "org.example.Victim"
    static let quota = 4 << 20

    override func setUpWithError() throws {
        try requirePrerequisite(geteuid() == 0, "needs root to mount a tmpfs")
        h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z",
                              notifierArguments: ["--notifier", "stdout", "--max-bytes-per-app", "\(Self.quota)"],
                              databaseName: "disk/schedd.db") { dir in
            let point = dir.file("disk")
            try FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)
            let mounted = try runProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=48m", "tmpfs", point])
            guard mounted.status == 0 else { throw TestSetupError("mount tmpfs: \(mounted.stderr)") }
            self.mountPoint = point
        }
    }

    override func tearDown() {
        _ = h?.stopDaemon()
        if !mountPoint.isEmpty { _ = try? runProcess("/bin/umount", [mountPoint]) }
        h?.tearDown()
    }

    /// The database and its write-ahead log, in bytes.
    private func databaseBytes(_ h: ScheddHarness) -> Int {
        [h.databasePath, h.databasePath + "-wal"].reduce(0) {
            $0 + ((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int) ?? 0)
        }
    }

    /// Pushes NDJSON as `app` from a file (`schedd push FILE`: the harness writes a process's whole standard
    /// input before reading its output, so 16 MiB of pushes through a pipe would deadlock on the answers);
    /// returns the answer objects (one per line).
    private func pushLines(_ h: ScheddHarness, _ lines: [String], app: String) throws -> [[String: Any]] {
        let file = NSTemporaryDirectory() + "schedd-quota-flood-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).ndjson"
        try lines.joined(separator: "\n").write(toFile: file, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let r = try h.cli(["push", file, "--json", "--app", app])
        XCTAssertNotEqual(r.status, 3, "no storage failure: \(r.stderr.prefix(500))")
        return r.lines.compactMap(parseObject)
    }

    private func victimPushes(_ h: ScheddHarness, _ round: Int) throws {
        let answers = try pushLines(h, [localPush(id: "mine:\(round)", at: "2026-03-09T09:00:00Z")], app: Self.victim)
        XCTAssertEqual(answers.first?["status"] as? String, "scheduled", "the other app's push: \(answers)")
    }

    func testPastPushAndUnknownCancelFloods_stayWithinTheQuota_andAnotherAppGoesOn() throws {
        let h = try XCTUnwrap(h)
        try victimPushes(h, 0)
        let start = databaseBytes(h)
        let data = "{\"d\":\"" + String(repeating: "x", count: 16_000) + "\"}"  // under the 16 KiB cap of `data`
        var missed = 0
        for chunk in stride(from: 0, to: 8_000, by: 1_000) {
            let lines = (chunk..<chunk + 1_000).map {
                localPush(id: "past:\($0)", at: "2026-03-07T05:00:00Z", extra: "\"data\":\(data)")
            }
            missed += try pushLines(h, lines, app: Self.flood).filter { $0["status"] as? String == "missed" }.count
            try victimPushes(h, chunk / 1_000 + 1)
        }
        XCTAssertEqual(missed, 8_000, "every past push is answered missed (none refused: each keeps ~230 counted bytes)")
        let afterPast = databaseBytes(h)
        print("quota flood: 8,000 past pushes × 16 KiB data grew the database by \(afterPast - start) bytes")
        XCTAssertLessThan(afterPast - start, 8_000 * 1_024,
                          "a missed push keeps its id, digest and due (~250 bytes), not its 16 KiB payload (128 MB in all)")

        var refusals: [String] = [], cancelled = 0
        for chunk in stride(from: 0, to: 81_000, by: 9_000) {
            let answers = try pushLines(h, (chunk..<chunk + 9_000).map { "{\"bk\":{\"cancel\":{\"id\":\"gone:\($0)\"}}}" },
                                        app: Self.flood)
            cancelled += answers.filter { $0["status"] as? String == "cancelled" }.count
            refusals += answers.compactMap { $0["error"] as? String }
            try victimPushes(h, 100 + chunk / 9_000)
        }
        let afterCancels = databaseBytes(h)
        print("quota flood: 81,000 cancels of unknown ids: \(cancelled) applied, \(refusals.count) refused; "
              + "the database grew by \(afterCancels - afterPast) bytes (\(afterCancels - start) in all)")
        XCTAssertGreaterThan(refusals.count, 0, "the tombstones reach the quota")
        XCTAssertTrue(refusals[0].contains("QuotaExceeded") || refusals[0].contains("max-bytes-per-app \(Self.quota)"),
                      refusals[0])
        XCTAssertTrue(refusals.allSatisfy { $0.contains("max-bytes-per-app \(Self.quota)") }, refusals.first ?? "")
        // The rows stay within the quota; the file holds them plus free pages, and the write-ahead log up to
        // SQLite's checkpoint threshold (1000 frames of 8 KiB: docs/store.md "Checkpoints") on top.
        XCTAssertLessThan(afterCancels - start, 2 * Self.quota + 1000 * 8192,
                          "the flooding app's rows stay within its quota (plus one write-ahead log)")
        // Still pushes for the other app, and the flood's refused cancels left nothing.
        try victimPushes(h, 1_000)
        XCTAssertEqual(try h.list(app: Self.victim).count, 19)
    }
}
