import Foundation
import Glibc
import SchedCalendar
import SystemZones
import TestPrerequisites
import XCTest
@testable import Scheduler

/// A store failure in the middle of a batch, caused for real: SQLite's temporary directory (where a large
/// savepoint sub-journal spills) is a 2 MiB tmpfs filled to the last byte, while the database's own disk
/// has room. The statement that needs the spill fails with SQLITE_FULL; the next one may succeed. A push
/// stopped that way may be half-written (its old row deleted, its history not), so the batch must fail
/// whole — not answer that line with an error and commit the rest.
final class EngineStatementFailureTests: XCTestCase {
    let t0 = utc(2026, 3, 8, 5)
    let app = "org.example.F"
    private var mountPoint = ""

    override func setUpWithError() throws {
        try requirePrerequisite(geteuid() == 0, "needs root to mount a tmpfs")
    }

    override func tearDown() {
        setTemporaryDirectory("")
        if !mountPoint.isEmpty { _ = run("/bin/umount", [mountPoint]) }
    }

    /// SQLite's process-wide temporary directory ("" restores its default search); set while no other
    /// connection is open (tests run serially).
    private func setTemporaryDirectory(_ path: String) {
        XCTAssertTrue(SQLiteConnection.setTemporaryDirectory(path), "SQLite takes the temporary directory \(path)")
    }

    @discardableResult
    private func run(_ path: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    func testStoreFailureInsideAPushEach_failsTheWholeMember_andChangesNothing() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let point = dir + "/tmp"
        XCTAssertEqual(mkdir(point, 0o700), 0)
        XCTAssertEqual(run("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", point]), 0, "mount a 2 MiB tmpfs")
        mountPoint = point
        run("/bin/dd", ["if=/dev/zero", "of=\(point)/fill", "bs=64k"])
        var info = statvfs()
        XCTAssertEqual(statvfs(point, &info), 0)
        XCTAssertEqual(info.f_bavail, 0, "the temporary directory is full")

        let e = try Engine(databasePath: dir + "/f.db", notifier: ScriptedNotifier(), deviceZone: .utc,
                           zones: ZoneDatabase.shared, maxPendingPerApp: 30_000, now: t0)
        defer { e.close() }
        func bulk(_ i: Int, edition: String) -> Push {
            pushLocal(makeLocal("bulk_\(i / 10):s\(i % 10)", atFixed(t0.adding(seconds: 600 + Int64(i) * 37)),
                                title: "Reminder \(i) \(edition)", body: "Your lesson \(i % 97) is waiting."))
        }
        _ = try e.pushBatch((0..<20_000).map { bulk($0, edition: "first") }, app: app, now: t0)
        // From now on a sub-journal larger than the in-memory spill threshold cannot be written anywhere.
        setTemporaryDirectory(point)

        var memberError: EngineError?
        try e.group { () throws(EngineError) in
            _ = try e.groupMember { () throws(EngineError) in
                try e.push(pushLocal(makeLocal("first", atFixed(t0.adding(seconds: 60)))), app: app, now: t0)
            }
            do throws(EngineError) {
                // Replacing every 4th stored schedule journals nearly every page: the spill is needed.
                _ = try e.groupMember { () throws(EngineError) in
                    try e.pushEach(stride(from: 0, to: 20_000, by: 4).map { bulk($0, edition: "second") }, app: app, now: t0)
                }
            } catch {
                memberError = error
            }
        }
        XCTAssertEqual(memberError?.kind, .storage, "the store failure fails the member: \(String(describing: memberError))")
        XCTAssertTrue(memberError?.message.contains("full") == true, memberError?.message ?? "")
        // The member is void; the group's other member committed.
        XCTAssertEqual(try e.pendingCount(app: app), 20_001)
        XCTAssertEqual(e.pendingCount, 20_001, "the wheel holds exactly the committed schedules")
        XCTAssertFalse(try e.history(app: app, limit: 100).contains { $0.event == .replaced }, "no replacement was kept")
        let titles = Set(try e.list(app: app, limit: nil).compactMap(\.title).filter { $0.hasPrefix("Reminder") })
        XCTAssertEqual(titles.count, 20_000)
        XCTAssertTrue(titles.allSatisfy { $0.hasSuffix(" first") }, "every stored schedule is the first edition")
    }
}
