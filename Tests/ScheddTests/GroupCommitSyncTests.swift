import Foundation
import SchedCalendar
@testable import Scheduler
import ScheddService
import SystemZones
import XCTest

/// The group commit with its syncs off the loop (docs/faults.md "Group commit", CommitSyncThread in the
/// daemon): a group is committed unsynced and answered only when the syncer reports the log's sync done;
/// the calls that arrive during a sync wait and commit as the next group; any other call syncs on the
/// loop first; a failed sync answers the storage error. The syncer here is a recording double whose
/// "sync" is the real `fdatasync` of the store's log (`WALSync`); the daemon's thread is exercised by
/// the daemon tests (every Push goes through it) and `scripts/bench/pushrate.sh`.
final class GroupCommitSyncTests: XCTestCase {
    final class ManualTrigger: LoopTrigger {
        func trigger() throws(LoopTriggerError) {}
    }

    final class Silent: ServiceLog, CancelAnnouncer {
        var announced: [[String]] = []
        func write(_ level: ServiceLogLevel, _ message: String, id: String?, run: String?) {}
        func announceCancelled(_ ids: [String], reason: String, app: String) { announced.append(ids) }
    }

    /// Records the syncs asked for; `syncNow` is the real sync of the store's log.
    final class RecordingSyncer: CommitSyncer {
        let log: WALSync
        var started: [UInt64] = []
        var syncedNow = 0
        init(log: WALSync) { self.log = log }
        func startSync(_ sequence: UInt64) { started.append(sequence) }
        func syncNow() -> StoreError? {
            syncedNow += 1
            do throws(StoreError) { try log.sync() } catch { return error }
            return nil
        }
    }

    final class Answers { var list: [(String, Result<CallAnswer, ServiceFailure>)] = [] }

    private var directory: String!
    private let start = Instant(seconds: 1_772_946_000)
    private let caller = Caller(app: Engine.defaultApp, sandboxed: false)

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "schedd-groupsync-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    private struct Parts {
        let store: SQLiteScheduleStore, engine: Engine, group: GroupCommit, service: Service
        let syncer: RecordingSyncer, log: Silent, reports: () -> [(StorageHealth.Report, Bool)]
    }

    final class ReportBox { var reports: [(StorageHealth.Report, Bool)] = [] }

    private func parts() throws -> Parts {
        let store = try SQLiteScheduleStore(path: directory + "/s.db")
        let engine = try Engine(store: store, notifier: RecordingNotifier(), deviceZone: .utc, zones: ZoneDatabase.shared, now: start)
        let log = Silent()
        let clock = ServiceClock(fakeStart: start, engine: { engine },
                                 zones: { name throws(ZoneError) in try ZoneDatabase.shared.zone(named: name) }, log: log)
        let box = ReportBox()
        let storage = StorageMonitor(now: { clock.now }, serving: { "Serving" }, report: { box.reports.append(($0, $1)) })
        let delivery = Delivery(engine: { engine }, clock: clock, storage: storage, log: log)
        clock.delivery = delivery
        let group = GroupCommit(engine: { engine }, clock: clock, storage: storage, announcer: log, log: log)
        group.trigger = ManualTrigger()
        group.afterCommit = { delivery.settle() }
        let syncer = RecordingSyncer(log: try WALSync(store: store))
        group.syncer = syncer
        let service = Service(engine: { engine }, clock: clock, delivery: delivery, groupCommit: group, storage: storage,
                              announcer: log)
        return Parts(store: store, engine: engine, group: group, service: service, syncer: syncer, log: log,
                     reports: { box.reports })
    }

    private func push(_ id: String) -> SchedulerCall {
        .push(#"{"bk":{"local":{"id":"\#(id)","at":"2026-03-08T06:00:00Z","title":"T"}}}"#)
    }

    private func serve(_ p: Parts, _ call: SchedulerCall, as name: String, into answers: Answers) {
        p.service.serve(call, caller: caller) { answers.list.append((name, $0)) }
    }

    /// The `synchronous` setting of the store's connection (2: FULL).
    private func synchronousSetting(_ store: SQLiteScheduleStore) throws -> Int64 {
        let st = try store.db.statement("PRAGMA synchronous")
        defer { st.reset() }
        XCTAssertTrue(try st.step())
        return st.int64(0)
    }

    func testAGroupIsAnsweredOnlyAfterItsSync_andWhatArrivesDuringTheSyncIsTheNextGroup() throws {
        let p = try parts()
        let answers = Answers()
        for i in 0..<2 { serve(p, push("run_1:\(i)"), as: "first\(i)", into: answers) }
        p.group.flush()
        XCTAssertEqual(p.engine.pendingCount, 2, "committed (visible to the engine)")
        XCTAssertTrue(answers.list.isEmpty, "but not answered before the sync")
        XCTAssertEqual(p.syncer.started, [1], "one sync asked for")
        XCTAssertEqual(p.group.unsyncedCount, 2)
        XCTAssertEqual(try synchronousSetting(p.store), 2, "FULL again after the unsynced commit")

        for i in 0..<3 { serve(p, push("run_2:\(i)"), as: "second\(i)", into: answers) }
        p.group.flush()
        XCTAssertEqual(p.group.waitingCount, 3, "they wait while the sync is under way")
        XCTAssertEqual(p.engine.pendingCount, 2)

        p.group.synced(1, failure: nil)
        XCTAssertEqual(answers.list.map(\.0), ["first0", "first1"], "the first group answered after its sync")
        XCTAssertTrue(answers.list.allSatisfy { (try? $0.1.get()).map { "\($0)".contains("scheduled") } == true }, "\(answers.list)")
        XCTAssertEqual(p.engine.pendingCount, 5, "the waiting calls committed as the next group")
        XCTAssertEqual(p.syncer.started, [1, 2], "and the next sync started")
        p.group.synced(2, failure: nil)
        XCTAssertEqual(answers.list.count, 5)
        XCTAssertEqual(p.group.statistics.summary, "5 calls in 2 commits (2.5 calls per commit, largest 3; by size 2:1 3:1)")
        XCTAssertEqual(p.syncer.syncedNow, 0, "no sync on the loop")
    }

    func testAnyOtherCallCommitsAndSyncsFirst_soItsAnswerNeverShowsAnUnsyncedChange() throws {
        let p = try parts()
        let answers = Answers()
        serve(p, push("run_1:a"), as: "push-a", into: answers)
        p.group.flush()  // committed, its sync under way
        serve(p, push("run_1:b"), as: "push-b", into: answers)  // waits behind that sync
        serve(p, .pendingCount, as: "count", into: answers)
        XCTAssertEqual(answers.list.map(\.0), ["push-a", "push-b", "count"], "both pushes answered before the count")
        XCTAssertEqual(answers.list.last.flatMap { try? $0.1.get() }, .count(2))
        XCTAssertEqual(p.syncer.syncedNow, 1, "synced on the loop, once")
        p.group.synced(1, failure: nil)  // the thread's late report answers nothing twice
        XCTAssertEqual(answers.list.count, 3)
        XCTAssertEqual(p.syncer.started, [1])
    }

    func testAFailedSyncAnswersTheStorageErrorToEveryCallOfItsGroup() throws {
        let p = try parts()
        let answers = Answers()
        for i in 0..<2 { serve(p, push("run_1:\(i)"), as: "p\(i)", into: answers) }
        p.group.flush()
        let cause = StoreError(.io, "cannot make the commit durable: fdatasync of the write-ahead log failed: EIO")
        p.group.synced(1, failure: cause)
        XCTAssertEqual(answers.list.count, 2)
        for (_, answer) in answers.list {
            guard case .failure(let failure) = answer else { return XCTFail("\(answer)") }
            XCTAssertEqual(failure.name, .storage)
            XCTAssertTrue(failure.message.contains("fdatasync"), failure.message)
        }
        XCTAssertTrue(p.reports().contains { $0.1 && ($0.0.log ?? "").contains("fdatasync") }, "\(p.reports())")
        // The next group syncs and succeeds: the failure period ends.
        serve(p, push("run_2:a"), as: "later", into: answers)
        p.group.flush()
        p.group.synced(2, failure: nil)
        guard case .success = answers.list.last?.1 else { return XCTFail("\(answers.list)") }
        XCTAssertFalse(p.reports().last?.1 ?? true, "recovered: \(p.reports())")
    }

    func testASyncedLaterTransactionLeavesFullSyncForEveryOtherCommit() throws {
        let store = try SQLiteScheduleStore(path: directory + "/t.db")
        XCTAssertEqual(try synchronousSetting(store), 2)
        try store.transactionSyncedLater { () throws(StoreError) in
            XCTAssertEqual(try? synchronousSetting(store), 1, "NORMAL inside")
            try store.transactionSyncedLater { () throws(StoreError) in }  // nested: joins, changes nothing
        }
        XCTAssertEqual(try synchronousSetting(store), 2)
        XCTAssertThrowsError(try store.transactionSyncedLater { () throws(StoreError) in throw StoreError(.io, "refused") })
        XCTAssertEqual(try synchronousSetting(store), 2, "FULL again after a rollback too")
        try WALSync(store: store).sync()
    }
}
