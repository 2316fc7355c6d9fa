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
    final class ManualTrigger: LoopTrigger {
        func trigger() throws(LoopTriggerError) {}
    }

    final class Recorder: ServiceLog, CancelAnnouncer {
        func write(_ level: ServiceLogLevel, _ message: String, id: String?, run: String?) {}
        func announceCancelled(_ ids: [String], reason: String, app: String) {}
        func announceCancelled(_ ids: [String], unlisted: Int, reason: String, app: String) {}
    }

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
        let engine = try Engine(store: SQLiteScheduleStore(path: directory + "/s.db"), notifier: RecordingNotifier(),
                                deviceZone: .utc, zones: ZoneDatabase.shared, now: start)
        defer { engine.close() }
        let log = Recorder()
        let clock = ServiceClock(fakeStart: start, engine: { engine },
                                 zones: { name throws(ZoneError) in try ZoneDatabase.shared.zone(named: name) }, log: log)
        let storage = StorageMonitor(now: { clock.now }, serving: { "Serving" }, report: { _, _ in })
        let delivery = Delivery(engine: { engine }, clock: clock, storage: storage, log: log)
        clock.delivery = delivery
        let group = GroupCommit(engine: { engine }, clock: clock, storage: storage, announcer: log, log: log)
        group.trigger = ManualTrigger()
        let service = Service(engine: { engine }, clock: clock, delivery: delivery, groupCommit: group, storage: storage,
                              announcer: log)
        final class Answers { var list: [Result<CallAnswer, ServiceFailure>] = [] }
        func serve(_ call: SchedulerCall) -> Answers {
            let answers = Answers()
            service.serve(call, caller: caller) { answers.list.append($0) }
            return answers
        }

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
        XCTAssertTrue(lone.list.isEmpty && bulk.list.isEmpty, "nothing answered before the commit")
        group.flush()
        for (name, answers) in [("Push", lone), ("PushBatch", bulk)] {
            guard case .failure(let failure)? = answers.list.first, answers.list.count == 1 else {
                return XCTFail("\(name) is answered with the Storage error: \(answers.list)")
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
        guard case .success(.string(let text))? = again.list.first else { return XCTFail("\(again.list)") }
        XCTAssertTrue(text.contains("scheduled"), text)
        guard case .success(.strings(let lines))? = againBulk.list.first else { return XCTFail("\(againBulk.list)") }
        XCTAssertEqual(lines.count, 100)
        XCTAssertTrue(lines.allSatisfy { $0.contains("scheduled") }, lines.first ?? "")
        XCTAssertEqual(engine.pendingCount, 102)
    }
}
