import SchedCalendar
import XCTest
@testable import Scheduler

/// The byte quota over everything an app keeps (CONTRACT §8 "Quota", schema 9, issue 31 item 2): the
/// totals the triggers keep equal the formulas recomputed over the rows, follow the file's real growth,
/// and bound what pushes that show nothing and cancels of unknown ids leave behind.
final class StoreKeptBytesTests: XCTestCase {
    let t0 = utc(2026, 3, 8, 5)
    let app = "org.example.Flood"
    let data = "{\"d\":\"" + String(repeating: "x", count: 16_000) + "\"}"

    /// The kept and history totals recomputed from the rows with `StoreKeptBytes`' SQL.
    func recomputed(_ store: SQLiteScheduleStore, _ app: String) throws -> (kept: Int, history: Int) {
        let K = StoreKeptBytes.self
        let kept = try store.db.statement("""
            SELECT (SELECT coalesce(sum(\(K.finishedSQL(""))), 0) FROM finished WHERE app = ?1)
                + (SELECT coalesce(sum(\(K.appliedSQL(""))), 0) FROM applied WHERE app = ?1)
                + (SELECT coalesce(sum(\(K.tombstoneSQL("t."))), 0) FROM tombstones AS t WHERE app = ?2)
                + (SELECT coalesce(sum(\(K.jobSQL(""))), 0) FROM cancel_jobs WHERE app = ?1),
                (SELECT coalesce(sum(\(K.historySQL("h."))), 0) FROM history AS h WHERE app = ?2)
                + (SELECT coalesce(sum(\(K.payloadSQL(""))), 0) FROM payloads WHERE app = ?2)
            """)
        defer { kept.reset() }
        kept.bind(1, try store.schedules.lookupApp(app))
        kept.bind(2, app)
        XCTAssertTrue(try kept.step())
        return (Int(kept.int64(0)), Int(kept.int64(1)))
    }

    /// Pages in use (file pages minus free pages) × page size: what the rows really take.
    func usedBytes(_ store: SQLiteScheduleStore) throws -> Int {
        func pragma(_ name: String) throws -> Int {
            let st = try store.db.statement("PRAGMA \(name)")
            defer { st.reset() }
            XCTAssertTrue(try st.step())
            return Int(st.int64(0))
        }
        return try (pragma("page_count") - pragma("freelist_count")) * pragma("page_size")
    }

    func testTheTotals_equalTheFormulasOverTheRows_throughEveryKindOfWrite_andGoBackToZero() throws {
        let h = try EngineHarness(now: t0)
        let store = h.e.store
        let soon = atFixed(t0.adding(seconds: 60)), past = atFixed(t0.adding(seconds: -86_400))
        _ = try h.e.push(pushLocal(makeLocal("fires", soon, title: "Fires", dataJSON: data), messageId: "m1"), app: app, now: t0)
        _ = try h.e.push(pushLocal(makeLocal("v", soon, title: "one")), app: app, now: t0)
        _ = try h.e.push(pushLocal(makeLocal("v", soon, title: "two")), app: app, now: t0)  // replaced: a digest in applied
        _ = try h.e.push(pushLocal(makeLocal("late", past, title: "Late", dataJSON: data)), app: app, now: t0)
        _ = try h.e.cancel(id: "unknown-id", app: app, now: t0)
        _ = try h.e.cancel(run: "unknown-run", app: app, now: t0)
        _ = try h.e.advance(to: t0.adding(seconds: 120), mode: .timePassing)
        let totals = try store.counts.storedTotals(app: app)
        let again = try recomputed(store, app)
        XCTAssertEqual(totals.keptBytes, again.kept)
        XCTAssertEqual(totals.historyBytes, again.history)
        XCTAssertGreaterThan(totals.keptBytes, 0)
        XCTAssertGreaterThan(totals.historyBytes, 16_000, "the fired record's data counts")

        // The push answered `missed` kept no payload: its record is id, digest and due.
        let late = try XCTUnwrap(try store.finished.record(app: app, id: "late"))
        XCTAssertEqual(late.outcome, .missed)
        XCTAssertNil(late.dataJSON)
        XCTAssertNil(late.title)
        XCTAssertNil(try h.e.history(app: app, limit: 100).first { $0.id == "late" }?.dataJSON)
        XCTAssertNotNil(try store.finished.record(app: app, id: "fires")?.dataJSON, "a fired one keeps what it showed")

        // Everything purged: the totals are 0 again.
        let later = t0.adding(seconds: 400 * 86_400)
        _ = try store.transaction { () throws(StoreError) in
            try store.finished.purge(expiredBy: later)
            try store.tombstones.purge(createdBefore: later)
            try store.applied.purge(before: later, limit: 1_000)
            try store.history.purge(olderThan: later, keepNewest: 0, limit: 1_000)
        }
        let purged = try store.counts.storedTotals(app: app)
        XCTAssertEqual(purged.keptBytes, 0)
        XCTAssertEqual(purged.historyBytes, 0)
    }

    /// The accounting against the file: the pages the rows of 2,000 missed pushes with 16 KiB data and
    /// 20,000 tombstones really take, next to what the quota counts for them: within 1.5× either way (measured 1.08 and 1.10).
    func testTheAccounting_followsTheFilesRealGrowth() throws {
        let h = try EngineHarness(now: t0)
        let store = h.e.store
        _ = try h.e.push(pushLocal(makeLocal("warm", atFixed(t0.adding(seconds: -86_400)))), app: app, now: t0)
        _ = try h.e.cancel(id: "warm-cancel", app: app, now: t0)
        for (kind, count) in [("missed", 2_000), ("tombstones", 20_000)] {
            let usedBefore = try usedBytes(store), countedBefore = try store.counts.storedTotals(app: app).all
            let pushes: [Push] = (0..<count).map { i in
                kind == "missed"
                    ? pushLocal(makeLocal("past:\(i)", atFixed(t0.adding(seconds: -86_400)), title: "Past \(i)", dataJSON: data))
                    : Push(cancel: .id("nothing:\(i)"))
            }
            for chunk in stride(from: 0, to: pushes.count, by: 500) {
                _ = try h.e.pushEach(Array(pushes[chunk..<min(chunk + 500, pushes.count)]), app: app, now: t0)
            }
            let used = try usedBytes(store) - usedBefore, counted = try store.counts.storedTotals(app: app).all - countedBefore
            print("kept bytes, \(kind) × \(count): file +\(used) B, counted +\(counted) B, ratio \(Double(used) / Double(counted))")
            XCTAssertLessThan(Double(used), 1.5 * Double(counted), "\(kind): the file grows by at most 1.5× what the quota counts")
            XCTAssertLessThan(Double(counted), 1.5 * Double(used), "\(kind): and the quota counts at most 1.5× that")
            if kind == "missed" { XCTAssertLessThan(used, count * 1_000, "no 16 KiB payload kept per missed push") }
        }
    }

    func testOverTheByteQuota_cancelsOfUnknownIdsAndMissedPushesAreRefused_nothingApplied_andOthersGoOn() throws {
        let h = try EngineHarness(maxBytesPerApp: 16_384, now: t0)
        let store = h.e.store
        var refused: EngineError?
        var i = 0
        while refused == nil && i < 10_000 {
            do { _ = try h.e.cancel(id: "unknown:\(i)", app: app, now: t0) } catch { refused = error }
            i += 1
        }
        let error = try XCTUnwrap(refused, "cancels of unknown ids stopped at the quota")
        XCTAssertEqual(error.kind, .quotaExceeded)
        XCTAssertTrue(error.message.contains("max-bytes-per-app 16384"), error.message)
        XCTAssertFalse(try store.tombstones.contains(app: app, .id, "unknown:\(i - 1)"), "nothing of the refused cancel applied")
        XCTAssertLessThanOrEqual(try store.counts.storedTotals(app: app).all, 16_384)
        // A missed push is refused the same way; a cancel of a pending schedule of another app is not affected.
        XCTAssertThrowsError(try h.e.push(pushLocal(makeLocal("past", atFixed(t0.adding(seconds: -86_400)))), app: app, now: t0)) {
            XCTAssertEqual(($0 as? EngineError)?.kind, .quotaExceeded)
        }
        XCTAssertNil(try store.finished.record(app: app, id: "past"))
        XCTAssertEqual(try h.e.push(pushLocal(makeLocal("mine", atFixed(t0.adding(seconds: 600)))), app: "org.example.Other",
                                    now: t0).last?.status, .scheduled)
        XCTAssertEqual(try h.e.cancel(id: "mine", app: "org.example.Other", now: t0), ["mine"])
    }

    func testAtTheBound_aCancelOfAPendingScheduleStillPasses_andHistoryGivesWay() throws {
        let h = try EngineHarness(maxBytesPerApp: 8_192, now: t0)
        let due = atFixed(t0.adding(seconds: 600)), body = String(repeating: "b", count: 1_500)
        var pushed: [String] = []
        for i in 0..<10 {
            guard (try? h.e.push(pushLocal(makeLocal("p\(i)", due, body: body)), app: app, now: t0)) != nil else { break }
            pushed.append("p\(i)")
        }
        XCTAssertGreaterThan(pushed.count, 2)
        XCTAssertLessThan(pushed.count, 6)
        for id in pushed { XCTAssertEqual(try h.e.cancel(id: id, app: app, now: t0), [id], "a cancel that makes room passes") }
        // The cancelled records (with their titles) are history: it gives way to new pushes.
        for i in 0..<3 {
            XCTAssertEqual(try h.e.push(pushLocal(makeLocal("q\(i)", due, body: body)), app: app, now: t0).last?.status, .scheduled)
        }
        let store = h.e.store
        XCTAssertLessThanOrEqual(try store.counts.storedTotals(app: app).all, 8_192)
    }
}
