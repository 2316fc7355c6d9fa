@testable import schedd
import SchedCalendar
import Scheduler
import ScheddService
@testable import ScheddClientCore
import XCTest

/// The pure parts of paging (issue 9 item 5): how many rows fit a page, the ListPage cursor text, and
/// how the CLI joins pages. The daemon and CLI around them are tested in BoundedRepliesTests.
final class ReplyPageTests: XCTestCase {
    func testRowsFittingOnePage_stopsBeforeTheRowThatCrossesTheByteBound() {
        // "[" + 3 × 10 bytes + 2 commas + "]" = 34 bytes.
        let rows = Array(repeating: String(repeating: "x", count: 10), count: 5)
        XCTAssertEqual(rowsFittingOnePage(rows, maxRows: 100, maxBytes: 34), 3)
        XCTAssertEqual(rowsFittingOnePage(rows, maxRows: 100, maxBytes: 33), 2)
        XCTAssertEqual(jsonArray(rows.prefix(3)).utf8.count, 34)
        XCTAssertEqual(rowsFittingOnePage(rows, maxRows: 2, maxBytes: 1000), 2)
        // One row always goes, even when it alone is over the bound (a page is never empty).
        XCTAssertEqual(rowsFittingOnePage(rows, maxRows: 100, maxBytes: 5), 1)
        XCTAssertEqual(rowsFittingOnePage([String](), maxRows: 100, maxBytes: 5), 0)
    }

    func testRowsFittingOnePage_defaultBounds_keepAPageOfLargeRowsUnderOneMiB() {
        let rows = Array(repeating: String(repeating: "y", count: 40_000), count: 1000)
        let count = rowsFittingOnePage(rows)
        XCTAssertEqual(count, 26)  // 26 × 40,001 + 1 ≤ 1 MiB < 27 × 40,001 + 1
        XCTAssertLessThanOrEqual(jsonArray(rows.prefix(count)).utf8.count, ReplyBounds.maxBytes)
        XCTAssertEqual(rowsFittingOnePage(Array(repeating: "1", count: 5000)), ReplyBounds.maxRows)
    }

    func testListCursorText_roundTrips_andRejectsAnythingElse() throws {
        let seal = PagingSeal(secret: Array(repeating: 7, count: 32))
        let cursor = PendingCursor(next: Instant(microseconds: 1_772_946_000_000_000), key: 42)  // 2026-03-08T05:00:00Z
        let text = ListCursorText.encode(cursor, seal: seal, app: "org.example.A")
        XCTAssertTrue(text.hasPrefix("v2:") && text.utf8.count == 43, text)
        XCTAssertFalse(text.contains("1772946000000000") || text.hasSuffix(":42"), "opaque: \(text)")
        XCTAssertEqual(try ListCursorText.decode(text, seal: seal, app: "org.example.A"), cursor)
        let negative = PendingCursor(next: Instant(microseconds: -5), key: 0)
        XCTAssertEqual(try ListCursorText.decode(ListCursorText.encode(negative, seal: seal, app: nil), seal: seal, app: nil), negative)
        XCTAssertNil(try ListCursorText.decode("", seal: seal, app: nil))
        XCTAssertEqual(try ListCursorText.start("", seal: seal, app: nil), .first)
        XCTAssertEqual(try ListCursorText.start("+0", seal: seal, app: nil), .skipping(0))
        XCTAssertEqual(try ListCursorText.start("+500000", seal: seal, app: nil), .skipping(500_000))
        // Per app and per daemon run: another app's cursor, the every-app listing's, or an earlier run's is refused.
        for (other, app) in [(seal, "org.example.B"), (seal, nil), (PagingSeal(secret: Array(repeating: 8, count: 32)), "org.example.A")] {
            XCTAssertThrowsError(try ListCursorText.start(text, seal: other, app: app), "\(String(describing: app))")
        }
        for bad in ["+", "+-1", "+x", "++1", "+99999999999", "+１"] {
            XCTAssertThrowsError(try ListCursorText.start(bad, seal: seal, app: nil), bad)
        }
        XCTAssertThrowsError(try ListCursorText.decode("+5", seal: seal, app: nil), "decode is for cursors only")
        for bad in ["v2:1:2", "v1:1772946000000000:42", "v1:1", "v2:" + String(repeating: "0", count: 40), "v2:xyz", "1:2",
                    String(repeating: "v", count: 1 << 20)] {
            XCTAssertThrowsError(try ListCursorText.decode(bad, seal: seal, app: nil)) { error in
                let rejection = error as? ArgumentRejection
                XCTAssertTrue(rejection?.message.hasPrefix("ListPage: after must be") == true, "\(String(describing: rejection))")
                XCTAssertLessThan(rejection?.message.utf8.count ?? .max, 300, "the message quotes a bounded prefix")
            }
        }
    }

    func testMergedJSONArray_joinsPagesInOrder_skippingEmptyOnes() {
        XCTAssertEqual(mergedJSONArray([]), "[]")
        XCTAssertEqual(mergedJSONArray(["[]"]), "[]")
        XCTAssertEqual(mergedJSONArray(["[1,2]", "[]", "[{\"a\":[3]}]", "[4]"]), "[1,2,{\"a\":[3]},4]")
    }

    func testJSONArrayCount_countsTopLevelElements_notCommasInsideStringsOrNestedValues() {
        XCTAssertEqual(jsonArrayCount("[]"), 0)
        XCTAssertEqual(jsonArrayCount(" [ ] "), 0)
        XCTAssertEqual(jsonArrayCount("[1]"), 1)
        XCTAssertEqual(jsonArrayCount(#"[{"a":[1,2],"b":"x,]\",y"},"s",[3,4],null]"#), 4)
    }

    /// The one pager (ScheddClientCore): asks for the offset once, follows cursors, stops at the limit
    /// or when the daemon has no next page; history stops at cursor 0 or an empty page.
    func testPagers_followCursors_untilTheLimitOrTheLastPage() {
        var list = PendingPager(offset: 5, limit: 1500)
        XCTAssertEqual(list.next?.after, "+5")
        XCTAssertEqual(list.next?.limit, 1000)
        list.received(rows: 1000, next: "c1")
        XCTAssertEqual(list.next?.after, "c1")
        XCTAssertEqual(list.next?.limit, 500)
        list.received(rows: 500, next: "c2")
        XCTAssertNil(list.next)
        var all = PendingPager()
        all.received(rows: 0, next: "c1")
        XCTAssertEqual(all.next?.after, "c1")
        all.received(rows: 0, next: "")
        XCTAssertNil(all.next)
        var history = HistoryPager(limit: 2500)
        XCTAssertEqual(history.next?.before, 0)
        history.received(rows: 1000, next: 77)
        XCTAssertEqual(history.next?.before, 77)
        history.received(rows: 1000, next: 0)
        XCTAssertNil(history.next)
    }
}
