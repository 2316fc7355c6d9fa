import ScheddClient
import XCTest

/// ScheddClient's batch splitter at the edges of the daemon's PushBatch caps (10,000 pushes, 8 MiB).
final class PushBatchPagesTests: XCTestCase {
    private func covers(_ pages: [Range<Int>], _ n: Int) -> Bool { pages.flatMap { Array($0) } == Array(0..<n) }

    func testAtAndOverTheEntryCap() {
        let cap = PushBatchLimits.maxEntries
        XCTAssertEqual(pushBatchPages(sizes: Array(repeating: 1, count: cap)), [0..<cap])
        XCTAssertEqual(pushBatchPages(sizes: Array(repeating: 1, count: cap + 1)), [0..<cap, cap..<(cap + 1)])
        XCTAssertTrue(covers(pushBatchPages(sizes: Array(repeating: 1, count: 25_001)), 25_001))
    }

    func testAtAndOverTheByteCap() {
        let half = PushBatchLimits.maxBytes / 2
        XCTAssertEqual(pushBatchPages(sizes: [half, half]), [0..<2], "exactly 8 MiB: one call")
        XCTAssertEqual(pushBatchPages(sizes: [half, half, 1]), [0..<2, 2..<3], "one byte over: two calls")
        XCTAssertEqual(pushBatchPages(sizes: [half, half + 1]), [0..<1, 1..<2])
    }

    func testAnOversizedPushGoesAlone_andNothingIsLost() {
        XCTAssertEqual(pushBatchPages(sizes: [10, PushBatchLimits.maxBytes + 5, 10]), [0..<1, 1..<2, 2..<3])
        XCTAssertEqual(pushBatchPages(sizes: []), [])
        let sizes = (0..<30_000).map { ($0 * 7919) % 70_000 }
        let pages = pushBatchPages(sizes: sizes)
        XCTAssertTrue(covers(pages, sizes.count))
        XCTAssertTrue(pages.allSatisfy { $0.count <= PushBatchLimits.maxEntries
                                         && ($0.count == 1 || $0.reduce(0) { $0 + sizes[$1] } <= PushBatchLimits.maxBytes) })
    }
}
