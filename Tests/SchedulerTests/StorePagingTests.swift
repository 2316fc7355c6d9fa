import SchedCalendar
import XCTest
@testable import Scheduler

/// Keyset paging of the pending list and of history (issue 9 item 5) in the SQLite store: every row once,
/// in (next due, key) order, also when many rows share one next due; history newest first below a cursor.
final class StorePagingTests: XCTestCase {
    var directory = ""

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { removeTree(directory) }

    private func stores() throws -> [(String, SQLiteScheduleStore)] {
        [("sqlite", try SQLiteScheduleStore(path: directory + "/schedd.db"))]
    }

    func testPendingPages_visitEveryRowOnceInOrder_evenWhenManyShareTheirNextDue() throws {
        for (label, store) in try stores() {
            defer { store.close() }
            // 250 rows: groups of 50 due at the same instant, inserted out of order.
            try store.transaction { () throws(StoreError) in
                for i in 0..<250 { _ = try store.schedules.insert(sampleSchedule(id: "p\(i)", next: Int64(1_000 - (i % 5) * 10))) }
            }
            let all = try store.schedules.byNext(app: Engine.defaultApp, limit: nil, offset: 0)
            for size in [1, 7, 50, 51, 249, 250, 1000] {
                var seen: [StoredSchedule] = [], cursor: PendingCursor?
                while true {
                    let page = try store.schedules.byNext(app: Engine.defaultApp, after: cursor, limit: size)
                    seen += page
                    guard page.count == size, let last = page.last else { break }
                    cursor = last.cursor
                }
                XCTAssertEqual(seen.map(\.key), all.map(\.key), "\(label), pages of \(size)")
            }
            XCTAssertEqual(all.count, 250)
            XCTAssertTrue(zip(all, all.dropFirst()).allSatisfy { $1.cursor.isAfter($0.cursor) }, label)
            // After the last row: nothing. Before the first: everything.
            XCTAssertEqual(try store.schedules.byNext(app: Engine.defaultApp, after: all.last!.cursor, limit: 10).count, 0, label)
            let before = PendingCursor(next: Instant(microseconds: Int64.min), key: Int64.min)
            XCTAssertEqual(try store.schedules.byNext(app: Engine.defaultApp, after: before, limit: 300).map(\.key), all.map(\.key), label)
        }
    }

    func testHistoryPages_newestFirstBelowTheCursor() throws {
        for (label, store) in try stores() {
            defer { store.close() }
            for i in 0..<30 {
                try store.history.append(HistoryRecord(app: Engine.defaultApp, id: "h\(i)", event: .fired, at: Instant(seconds: Int64(i)), due: nil,
                                                      reason: nil, lateSeconds: 0, title: nil, messageId: nil, dataJSON: nil))
            }
            let newest = try store.history.records(app: Engine.defaultApp, before: nil, limit: 10)
            XCTAssertEqual(newest.map(\.record.id), (20..<30).reversed().map { "h\($0)" }, label)
            XCTAssertTrue(zip(newest, newest.dropFirst()).allSatisfy { $0.seq > $1.seq }, label)
            let older = try store.history.records(app: Engine.defaultApp, before: newest.last!.seq, limit: 100)
            XCTAssertEqual(older.map(\.record.id), (0..<20).reversed().map { "h\($0)" }, label)
            XCTAssertEqual(try store.history.records(app: Engine.defaultApp, before: older.last!.seq, limit: 100).count, 0, label)
            XCTAssertEqual(try store.history.records(app: Engine.defaultApp, before: nil, limit: 0).count, 0, label)
        }
    }
}
