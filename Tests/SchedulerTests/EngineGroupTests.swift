import SchedCalendar
import SystemZones
import XCTest
@testable import Scheduler

/// `Engine.group` / `groupMember` (the daemon's group commit) on the SQLite store: a member that fails
/// after writing part of its push (its `bk.cancel`) is undone whole, by the member's one savepoint, while
/// the other members commit; an all-or-nothing push nested in a group without a member keeps its own
/// all-or-nothing (one savepoint for the whole call).
final class EngineGroupTests: XCTestCase {
    let t0 = utc(2026, 3, 8, 5)
    let app = "org.example.G"

    private func engine(_ dir: String, quota: Int) throws -> Engine {
        try Engine(databasePath: dir + "/g.db", notifier: ScriptedNotifier(), deviceZone: .utc,
               zones: ZoneDatabase.shared, maxPendingPerApp: quota, now: t0)
    }

    /// Quota 3, "keep" pending. Member 1 adds "first"; member 2 cancels "keep", adds "other" and "more", then
    /// "new" is over the quota: the member throws; member 3 adds "last" (fits once member 2 is undone).
    func testFailingMember_isUndoneWhole_cancelIncluded_andTheOthersCommit() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let e = try engine(dir, quota: 3)
        defer { e.close() }
        let due = atFixed(t0.adding(seconds: 600))
        _ = try e.push(pushLocal(makeLocal("keep", due)), app: app, now: t0)
        var outcomes: [String] = []
        try e.group { () throws(EngineError) in
            let first = try e.groupMember { () throws(EngineError) in try e.push(pushLocal(makeLocal("first", due)), app: app, now: t0) }
            outcomes.append("\(first.last!.status)")
            var cancelAndFill = Push(cancel: .id("keep"))
            cancelAndFill.local = makeLocal("other", due)
            do throws(EngineError) {
                _ = try e.groupMember { () throws(EngineError) in
                    _ = try e.push(cancelAndFill, app: app, now: t0)
                    _ = try e.push(pushLocal(makeLocal("more", due)), app: app, now: t0)
                    return try e.push(pushLocal(makeLocal("new", due)), app: app, now: t0)
                }
                outcomes.append("applied")
            } catch {
                outcomes.append("\(error.kind)")
            }
            let last = try e.groupMember { () throws(EngineError) in try e.push(pushLocal(makeLocal("last", due)), app: app, now: t0) }
            outcomes.append("\(last.last!.status)")
        }
        XCTAssertEqual(outcomes, ["scheduled", "quotaExceeded", "scheduled"])
        // The failed member is void: "keep" is still pending and armed, "other" and "more" were not stored.
        XCTAssertEqual(try e.list(app: app, limit: nil).map(\.id).sorted(), ["first", "keep", "last"])
        XCTAssertEqual(e.pendingCount, 3, "the wheel holds exactly the committed schedules")
        XCTAssertFalse(try e.history(app: app, limit: 20).contains { $0.event == .cancelled }, "the cancel was undone")
        XCTAssertEqual(try e.pendingCount(app: app), 3)
    }

    func testAllOrNothingPush_nestedInAGroupWithoutAMember_undoesItsOwnWrites() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let e = try engine(dir, quota: 1)
        defer { e.close() }
        let due = atFixed(t0.adding(seconds: 600))
        _ = try e.push(pushLocal(makeLocal("keep", due)), app: app, now: t0)
        // Two pushes in one batch: the first cancels "keep" and schedules "a" (fits), the second is over the quota.
        var first = Push(cancel: .id("keep"))
        first.local = makeLocal("a", due)
        let batch = [first, pushLocal(makeLocal("b", due))]
        var rejected = false
        try e.group { () throws(EngineError) in
            do throws(EngineError) {
                _ = try e.pushBatch(batch, app: app, now: t0)
            } catch {
                rejected = error.kind == .quotaExceeded
            }
            _ = try e.push(pushLocal(makeLocal("c", due)), app: "org.example.Other", now: t0)
        }
        XCTAssertTrue(rejected)
        XCTAssertEqual(try e.list(app: app, limit: nil).map(\.id), ["keep"], "no push of the rejected batch applied")
        XCTAssertFalse(try e.history(app: app, limit: 20).contains { $0.event == .cancelled }, "the batch's cancel was undone")
        XCTAssertEqual(try e.list(app: "org.example.Other", limit: nil).map(\.id), ["c"], "the group committed the rest")
        XCTAssertEqual(e.pendingCount, 2)
    }

    /// A member whose savepoint journals more pages than fit in memory (its sub-journal spills to a temporary
    /// file): replacing every 4th of 20,000 stored schedules touches nearly every page the store had, ~10 MB
    /// of pre-images. With a spill threshold of 128 KiB or more, SQLite 3.40 wrote the in-memory chunk with
    /// one write masked to 17 bits (`seekAndWriteFd`), a short write it reports as SQLITE_FULL: the member
    /// failed with "database or disk is full" on a disk with room (seen as rejected `schedd push FILE` lines).
    func testMemberWithASubJournalLargerThanTheSpillThreshold_commitsWhole() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let e = try engine(dir, quota: 30_000)
        defer { e.close() }
        func bulk(_ i: Int, edition: String) -> Push {
            pushLocal(makeLocal("bulk_\(i / 10):s\(i % 10)", atFixed(t0.adding(seconds: 600 + Int64(i) * 37)),
                                title: "Reminder \(i) \(edition)", body: "Your lesson \(i % 97) is waiting. Keep your streak going!"))
        }
        _ = try e.pushBatch((0..<20_000).map { bulk($0, edition: "first") }, app: app, now: t0)
        let replacements = stride(from: 0, to: 20_000, by: 4).map { bulk($0, edition: "second") }
        var statuses: [String] = []
        try e.group { () throws(EngineError) in
            _ = try e.groupMember { () throws(EngineError) in try e.push(pushLocal(makeLocal("first", atFixed(t0.adding(seconds: 60)))), app: app, now: t0) }
            for result in try e.groupMember({ () throws(EngineError) in try e.pushEach(replacements, app: app, now: t0) }) {
                switch result {
                case .success(let outcomes): statuses.append("\(outcomes.last!.status)")
                case .failure(let error): statuses.append("\(error.kind): \(error.message)")
                }
            }
        }
        XCTAssertEqual(Set(statuses), ["replaced"], "every push of the large member replaces its schedule")
        XCTAssertEqual(statuses.count, 5_000)
        XCTAssertEqual(try e.pendingCount(app: app), 20_001)
        XCTAssertEqual(e.pendingCount, 20_001, "the wheel holds exactly the committed schedules")
        XCTAssertEqual(try e.history(app: app, limit: 6_000).filter { $0.event == .replaced }.count, 5_000)
    }

    /// SQLite rolls the whole transaction back by itself on SQLITE_IOERR (and on SQLITE_FULL in a statement
    /// without a statement journal). Here a member's statement fails that way — the statement runs ROLLBACK
    /// on the store's connection and fails, which is the state SQLite leaves — and the group goes on with the
    /// next member. That member must fail too (not run in autocommit mode: stored, answered failed, never
    /// armed), and the group must fail whole: nothing stored, nothing armed.
    func testSQLiteRollingBackTheTransactionItself_failsEveryLaterMemberAndTheGroup() throws {
        let dir = makeTemporaryDirectory()
        defer { removeTree(dir) }
        let store = try SQLiteScheduleStore(path: dir + "/g.db")
        let e = try Engine(store: store, notifier: ScriptedNotifier(), deviceZone: .utc, zones: ZoneDatabase.shared, now: t0)
        defer { e.close() }
        let due = atFixed(t0.adding(seconds: 600))
        var memberErrors: [String] = []
        var groupError: EngineError?
        do throws(EngineError) {
            try e.group { () throws(EngineError) in
                _ = try e.groupMember { () throws(EngineError) in try e.push(pushLocal(makeLocal("a", due)), app: app, now: t0) }
                do throws(EngineError) {
                    _ = try e.groupMember { () throws(EngineError) in
                        _ = try e.push(pushLocal(makeLocal("b", due)), app: app, now: t0)
                        return try e.state.storage { () throws(StoreError) in
                            try store.sql { () throws(SQLiteError) in
                                try store.db.execute("ROLLBACK")
                                throw SQLiteError(code: 10, message: "disk I/O error", context: "INSERT INTO history")
                            }
                        }
                    }
                } catch {
                    memberErrors.append("b: \(error.kind)")
                }
                do throws(EngineError) {
                    _ = try e.groupMember { () throws(EngineError) in try e.push(pushLocal(makeLocal("c", due)), app: app, now: t0) }
                    memberErrors.append("c: applied")
                } catch {
                    memberErrors.append("c: \(error.kind): \(error.message)")
                }
            }
        } catch {
            groupError = error
        }
        XCTAssertEqual(memberErrors.first, "b: storage")
        XCTAssertEqual(memberErrors.last?.hasPrefix("c: storage: SQLite rolled this transaction back"), true, "\(memberErrors)")
        XCTAssertEqual(groupError?.kind, .storage, "the group fails whole")
        XCTAssertEqual(try e.list(app: app, limit: nil).map(\.id), [], "nothing of the group is stored")
        XCTAssertEqual(e.pendingCount, 0, "nor armed")
        // The store works again for the next transaction.
        XCTAssertEqual(try e.push(pushLocal(makeLocal("d", due)), app: app, now: t0).last?.status, .scheduled)
        XCTAssertEqual(e.pendingCount, 1)
    }
}
