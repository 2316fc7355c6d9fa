import Foundation
import SchedCalendar
@testable import Scheduler
import ScheddService
import XCTest

/// The group commit with its sync off the loop (issue 35 item 1; docs/faults.md "Group commit"): a
/// group's COMMIT only writes the log; its calls are answered once a sync that began after that COMMIT
/// returned; the next groups commit while it runs and share the next sync; every other call's answer
/// waits too (no answer shows a write a power cut could take back); a failed sync answers its groups
/// with a storage error. The device is driven by hand here; `LogSyncOrderTests` watches the real
/// daemon's system calls.
final class GroupCommitSyncTests: XCTestCase {
    /// The sync thread's stand-in: counts the syncs asked for; the test reports them done.
    final class HandSyncDevice: SyncPipeline.Device {
        var begun = 0
        var syncedHere = 0
        func beginSync() { begun += 1 }
        func syncHere() -> String? { syncedHere += 1; return nil }
    }

    private var directory: String!
    private let start = Instant(seconds: 1_772_946_000)  // 2026-03-08T05:00:00Z
    private let caller = Caller(app: Engine.defaultApp, sandboxed: false)

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "schedd-sync-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    private func push(_ id: String) -> SchedulerCall {
        .push(#"{"bk":{"local":{"id":"\#(id)","at":"2026-03-08T06:00:00Z","title":"T","cancelOn":["ev"]}}}"#)
    }

    /// Rows in `schedules` as a second connection reads them: what is committed, answered or not.
    private func committedRows() throws -> Int64 {
        let db = try SQLiteConnection(openingExisting: directory + "/s.db", readOnly: true)
        let count = try db.statement("SELECT count(*) FROM schedules")
        _ = try count.step()
        return count.int64(0)
    }

    func testAPushIsAnsweredOnlyAfterASyncThatBeganAfterItsCommit_andTheNextGroupsShareTheNextSync() throws {
        let device = HandSyncDevice()
        let p = try ServiceParts(databasePath: directory + "/s.db", start: start, syncDevice: device)
        let pipeline = try XCTUnwrap(p.group.durability)
        let first = p.serve(push("run_1:a"), caller: caller)
        p.group.flush()
        XCTAssertEqual(try committedRows(), 1, "the group is committed")
        XCTAssertTrue(first().isEmpty, "but not answered before its sync")
        XCTAssertEqual(device.begun, 1)
        // Two more groups commit while the first sync runs; neither starts a sync of its own.
        let second = p.serve(push("run_1:b"), caller: caller)
        p.group.flush()
        let third = p.serve(push("run_1:c"), caller: caller)
        p.group.flush()
        XCTAssertEqual(try committedRows(), 3)
        XCTAssertEqual(device.begun, 1, "one sync at a time")
        XCTAssertTrue(first().isEmpty && second().isEmpty && third().isEmpty)
        pipeline.synced(nil)
        XCTAssertEqual(first().count, 1, "answered by the sync that began after its commit")
        guard case .success(.string(let text))? = first().first else { return XCTFail("\(first())") }
        XCTAssertTrue(text.contains("scheduled"), text)
        XCTAssertTrue(second().isEmpty && third().isEmpty, "committed after that sync began: not covered by it")
        XCTAssertEqual(device.begun, 2, "the next sync starts at once, for both")
        pipeline.synced(nil)
        XCTAssertEqual(second().count, 1)
        XCTAssertEqual(third().count, 1)
        XCTAssertEqual(device.begun, 2, "nothing left to sync")
        XCTAssertFalse(pipeline.isWaiting)
        XCTAssertEqual(pipeline.syncs, 2)
        XCTAssertEqual(pipeline.commits, 3)
    }

    func testWhileASyncRuns_pushesWaitForItAndCommitAsOneGroup_butABatchCommitsAtOnce() throws {
        let device = HandSyncDevice()
        let p = try ServiceParts(databasePath: directory + "/s.db", start: start, syncDevice: device, looped: [.groupCommit])
        let pipeline = try XCTUnwrap(p.group.durability)
        let trigger = try XCTUnwrap(p.loop.triggers[.groupCommit])
        let first = p.serve(push("run_5:a"), caller: caller)
        p.group.flushReady()  // no sync under way: commits at once
        XCTAssertEqual(try committedRows(), 1)
        XCTAssertEqual(device.begun, 1)
        let second = p.serve(push("run_5:b"), caller: caller)
        let third = p.serve(push("run_5:c"), caller: caller)
        p.group.flushReady()
        XCTAssertEqual(try committedRows(), 1, "while the sync runs, the next pushes wait for it")
        p.group.flushReady()
        XCTAssertEqual(try committedRows(), 1)
        let pulls = trigger.pulls
        pipeline.synced(nil)
        XCTAssertEqual(first().count, 1, "the first push is answered by its sync")
        XCTAssertTrue(second().isEmpty && third().isEmpty)
        XCTAssertEqual(trigger.pulls, pulls + 1, "the sync's return schedules the held group")
        p.group.flushReady()
        XCTAssertEqual(try committedRows(), 3)
        XCTAssertEqual(p.group.statistics.commits, 2, "the two held pushes commit as one group")
        XCTAssertEqual(p.group.statistics.largest, 2)
        XCTAssertEqual(device.begun, 2)
        // A batch does not wait: the loop applies it while the disk syncs the group before.
        let batch = p.serve(.pushBatch([push("run_5:d"), push("run_5:e")].map { call -> String in
            guard case .push(let text) = call else { return "" }
            return text
        }), caller: caller)
        p.group.flushReady()
        XCTAssertEqual(try committedRows(), 5, "a batch commits while a sync runs")
        XCTAssertTrue(batch().isEmpty, "and is answered only after a sync that began after its commit")
        pipeline.synced(nil)
        XCTAssertEqual(second().count, 1)
        XCTAssertEqual(third().count, 1)
        XCTAssertTrue(batch().isEmpty)
        pipeline.synced(nil)
        XCTAssertEqual(batch().count, 1)
        XCTAssertFalse(pipeline.isWaiting)
    }

    func testEveryOtherCallWaitsForTheSyncOfTheWritesItSees_andIsAnsweredAtOnceWhenNoneIsPending() throws {
        let device = HandSyncDevice()
        let p = try ServiceParts(databasePath: directory + "/s.db", start: start, syncDevice: device)
        let pipeline = try XCTUnwrap(p.group.durability)
        let idle = p.serve(.list(limit: 10, offset: 0), caller: caller)
        XCTAssertEqual(idle().count, 1, "nothing waits for the disk: answered at once")
        let pushed = p.serve(push("run_2:a"), caller: caller)
        let listed = p.serve(.list(limit: 10, offset: 0), caller: caller)  // flushes the push first
        XCTAssertEqual(try committedRows(), 1)
        XCTAssertTrue(pushed().isEmpty)
        XCTAssertTrue(listed().isEmpty, "a List that shows the push waits until the push is on the disk")
        pipeline.synced(nil)
        XCTAssertEqual(pushed().count, 1)
        guard case .success(.string(let text))? = listed().first else { return XCTFail("\(listed())") }
        XCTAssertTrue(text.contains("run_2:a"), text)
        // A call that arrives while a sync runs, with no commit since it began, rides on that sync.
        _ = p.serve(push("run_2:b"), caller: caller)
        p.group.flush()
        let shown = p.serve(.clockShow, caller: caller)
        XCTAssertTrue(shown().isEmpty)
        XCTAssertEqual(device.begun, 2)
        pipeline.synced(nil)
        XCTAssertEqual(shown().count, 1)
        XCTAssertEqual(device.begun, 2, "no sync of its own")
    }

    /// One app's reads wait only for that app's writes (CONTRACT §8 "Fair service": a flood of one app's
    /// writes on a slow disk must not delay another app's read); a read that shows every app (the
    /// *AllApps calls, Status, the clock) waits for every write, and an app's own read for its own.
    func testAReadOfOneAppWaitsOnlyForThatAppsWrites_aReadOfEveryAppForAll() throws {
        let device = HandSyncDevice()
        let p = try ServiceParts(databasePath: directory + "/s.db", start: start, syncDevice: device, looped: [.groupCommit])
        let pipeline = try XCTUnwrap(p.group.durability)
        let other = Caller(app: "org.example.Other", sandboxed: false)
        let pushed = p.serve(push("run_6:a"), caller: caller)
        p.group.flush()
        XCTAssertEqual(device.begun, 1)
        let othersCount = p.serve(.pendingCount, caller: other)
        let othersList = p.serve(.list(limit: 10, offset: 0), caller: other)
        XCTAssertEqual(othersCount().count, 1, "another app's count does not wait for this app's sync")
        guard case .success(.count(0))? = othersCount().first else { return XCTFail("\(othersCount())") }
        XCTAssertEqual(othersList().count, 1)
        let ownCount = p.serve(.pendingCount, caller: caller)
        let everyApp = p.serve(.pendingCountAllApps, caller: other)
        let clock = p.serve(.clockShow, caller: other)
        XCTAssertTrue(pushed().isEmpty && ownCount().isEmpty, "the app's own read shows its push: it waits")
        XCTAssertTrue(everyApp().isEmpty && clock().isEmpty, "a read of every app shows the push too: it waits")
        // Another app's write waiting for the commit is not committed (nor waited for) by this app's read.
        let othersPush = p.serve(push("run_6:b"), caller: other)
        let mine = p.serve(.list(limit: 10, offset: 0), caller: caller)
        XCTAssertEqual(try committedRows(), 1, "the other app's waiting push is not committed by this app's read")
        XCTAssertEqual(p.group.waitingCount, 1)
        pipeline.synced(nil)
        XCTAssertEqual(pushed().count, 1)
        guard case .success(.count(1))? = ownCount().first, case .success(.count(1))? = everyApp().first else {
            return XCTFail("\(ownCount()) \(everyApp())")
        }
        XCTAssertEqual(clock().count, 1)
        guard case .success(.string(let text))? = mine().first else { return XCTFail("\(mine())") }
        XCTAssertTrue(text.contains("run_6:a"), text)
        p.group.flush()
        XCTAssertEqual(try committedRows(), 2)
        let othersOwn = p.serve(.list(limit: 10, offset: 0), caller: other)
        XCTAssertTrue(othersPush().isEmpty && othersOwn().isEmpty, "now the other app's read waits for its own push")
        pipeline.synced(nil)
        XCTAssertEqual(othersPush().count, 1)
        XCTAssertEqual(othersOwn().count, 1)
        XCTAssertFalse(pipeline.isWaiting)
    }

    func testAFailedSyncAnswersEveryCallOfItsGroupsWithAStorageErrorNamingTheSync() throws {
        let device = HandSyncDevice()
        // The group commit waits for the test: both pushes in one group.
        let p = try ServiceParts(databasePath: directory + "/s.db", start: start, syncDevice: device, looped: [.groupCommit])
        let pipeline = try XCTUnwrap(p.group.durability)
        let answers = (0..<2).map { p.serve(push("run_3:\($0)"), caller: caller) }
        p.group.flush()
        XCTAssertEqual(p.group.statistics.commits, 1)
        pipeline.synced("fdatasync of /x/s.db-wal: Input/output error")
        for answer in answers {
            guard case .failure(let failure)? = answer().first, answer().count == 1 else { return XCTFail("\(answer())") }
            XCTAssertEqual(failure.name, .storage)
            XCTAssertTrue(failure.message.contains("could not be synced to the disk (fdatasync of /x/s.db-wal: Input/output error)"),
                          failure.message)
        }
        XCTAssertTrue(p.reports().contains { $0.1 }, "the storage health reports the failure")
        // The next group, synced, is answered normally.
        let next = p.serve(push("run_3:next"), caller: caller)
        p.group.flush()
        pipeline.synced(nil)
        guard case .success? = next().first else { return XCTFail("\(next())") }
    }

    func testDrainSyncsOnTheCallingThreadAndAnswersEverythingWaiting() throws {
        let device = HandSyncDevice()
        let p = try ServiceParts(databasePath: directory + "/s.db", start: start, syncDevice: device)
        let a = p.serve(push("run_4:a"), caller: caller)
        p.group.flush()
        let b = p.serve(push("run_4:b"), caller: caller)  // waits in the group commit, not yet committed
        XCTAssertTrue(a().isEmpty && b().isEmpty)
        p.group.flushAndDrain()
        XCTAssertEqual(device.syncedHere, 1)
        XCTAssertEqual(a().count, 1)
        XCTAssertEqual(b().count, 1)
        XCTAssertEqual(try committedRows(), 2)
        p.group.durability?.synced(nil)  // the thread's late report after the drain changes nothing
        XCTAssertEqual(a().count, 1)
    }

    func testCommittingWithoutSyncTurnsTheSyncOffForItsTransactionsOnly_andBackOnWhenTheyThrow() throws {
        let store = try SQLiteScheduleStore(path: directory + "/s.db")
        func synchronous() throws -> Int64 {
            let pragma = try store.db.statement("PRAGMA synchronous")
            _ = try pragma.step()
            return pragma.int64(0)
        }
        /// The level a transaction outside the deferred section commits with, read inside it.
        func levelOfAWrite() throws -> Int64 {
            try store.transaction { () throws(StoreError) -> Int64 in
                do { return try synchronous() } catch { return -1 }
            }
        }
        XCTAssertEqual(try synchronous(), 2, "FULL: every other path's commit is durable when it returns")
        let (inside, deferred) = store.committingWithoutSync { () -> Int64 in
            (try? store.transaction { () throws(StoreError) -> Int64 in (try? synchronous()) ?? -1 }) ?? -1
        }
        XCTAssertTrue(deferred)
        XCTAssertEqual(inside, 0, "OFF inside: the group's COMMIT does not sync")
        // OFF stays set between group commits (no PRAGMA each time) …
        XCTAssertEqual(try synchronous(), 0)
        let (again, _) = store.committingWithoutSync { () -> Int64 in (try? synchronous()) ?? -1 }
        XCTAssertEqual(again, 0)
        // … and any transaction outside a section commits with FULL: the connection sets it before BEGIN.
        XCTAssertEqual(try levelOfAWrite(), 2, "a write outside the section syncs at COMMIT")
        XCTAssertEqual(try synchronous(), 2)
        struct Thrown: Error {}
        XCTAssertThrowsError(try store.committingWithoutSync { () throws(Thrown) -> Void in throw Thrown() })
        XCTAssertEqual(try levelOfAWrite(), 2, "FULL again for a write after a section that threw")
        // A write in autocommit mode (no BEGIN) after a section: FULL before it too.
        _ = store.committingWithoutSync { () -> Int in 0 }
        XCTAssertEqual(try synchronous(), 0)
        try store.db.execute("CREATE TABLE IF NOT EXISTS autocommit_probe(x)")
        XCTAssertEqual(try synchronous(), 2, "an autocommit write outside a section syncs")
        XCTAssertTrue(store.writeAheadLogPath.hasSuffix("/s.db-wal"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: store.writeAheadLogPath))
    }
}
