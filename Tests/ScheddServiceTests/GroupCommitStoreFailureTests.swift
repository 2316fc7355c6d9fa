import Foundation
import Glibc
import SchedCalendar
@testable import Scheduler
import ScheddService
import SystemZones
import TestPrerequisites
import XCTest

/// A store failure inside a group that holds a `PushBatch`, caused for real: the database on a 2 MiB
/// tmpfs filled to the last byte with dd. A `PushBatch` member runs without a savepoint (docs/faults.md,
/// "Group commit"), so a store failure inside it must fail the whole group: every call of the group is
/// answered with the Storage error and nothing of any of them is stored. Once the fill file is gone the
/// same calls succeed.
final class GroupCommitStoreFailureTests: XCTestCase {
    private var directory = ""
    private var mounted = false
    private let start = Instant(seconds: 1_772_946_000)  // 2026-03-08T05:00:00Z
    private let caller = Caller(app: Engine.defaultApp, sandboxed: false)

    override func setUpWithError() throws {
        try requirePrerequisite(geteuid() == 0, "needs root to mount a tmpfs")
        directory = NSTemporaryDirectory() + "schedd-groupfull-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let result = try runProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", directory])
        guard result.status == 0 else { throw TestSetupError("mount tmpfs: \(result.stderr)") }
        mounted = true
    }

    override func tearDown() {
        if mounted { _ = try? runProcess("/bin/umount", [directory]) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func pushText(_ id: String, body: Int = 0) -> String {
        #"{"bk":{"local":{"id":"\#(id)","at":"2026-03-08T06:00:00Z","title":"T","body":"\#(String(repeating: "b", count: body))"}}}"#
    }

    func testStoreFailureInsideAPushBatch_failsEveryCallOfTheGroup_andStoresNothing() throws {
        let parts = try ServiceParts(databasePath: directory + "/s.db", start: start, looped: [.groupCommit])
        let engine = parts.engine
        defer { engine.close() }
        let group = parts.group
        func serve(_ call: SchedulerCall) -> () -> [Result<CallAnswer, ServiceFailure>] { parts.serve(call, caller: caller) }

        XCTAssertEqual(try engine.push(PushDecoder.decode(Array(pushText("before").utf8), zones: ZoneDatabase.shared),
                                       now: start).first?.status, .scheduled)
        _ = try runProcess("/bin/dd", ["if=/dev/zero", "of=\(directory)/fill", "bs=4k"])
        var info = statvfs()
        XCTAssertEqual(statvfs(directory, &info), 0)
        XCTAssertEqual(info.f_bavail, 0, "the disk is full")

        // One group: a Push, then a PushBatch whose 600 entries of 4 KB (2.4 MB) cannot all stay in SQLite's
        // page cache, so the store fails while the batch runs (or at the commit).
        let batch = (0..<600).map { pushText("bulk:\($0)", body: 4_000) }
        let lone = serve(.push(pushText("lone")))
        let bulk = serve(.pushBatch(batch))
        XCTAssertTrue(lone().isEmpty && bulk().isEmpty, "nothing answered before the commit")
        group.flush()
        for (name, answers) in [("Push", lone), ("PushBatch", bulk)] {
            guard case .failure(let failure)? = answers().first, answers().count == 1 else {
                return XCTFail("\(name) is answered with the Storage error: \(answers())")
            }
            XCTAssertEqual(failure.name, .storage, "\(name): \(failure)")
        }
        XCTAssertEqual(try engine.list(limit: nil).map(\.id), ["before"], "nothing of the group is stored")
        XCTAssertEqual(engine.pendingCount, 1, "nor armed")

        // Room again: the same calls succeed.
        try FileManager.default.removeItem(atPath: directory + "/fill")
        let again = serve(.push(pushText("lone")))
        let againBulk = serve(.pushBatch(Array(batch.prefix(100))))
        group.flush()
        guard case .success(.string(let text))? = again().first else { return XCTFail("\(again())") }
        XCTAssertTrue(text.contains("scheduled"), text)
        guard case .success(.strings(let lines))? = againBulk().first else { return XCTFail("\(againBulk())") }
        XCTAssertEqual(lines.count, 100)
        XCTAssertTrue(lines.allSatisfy { $0.contains("scheduled") }, lines.first ?? "")
        XCTAssertEqual(engine.pendingCount, 102)
    }
}
