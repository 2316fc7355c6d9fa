import XCTest
@testable import ScheddPush

/// The back-off of RejectionRecorder's failed flushes (a full disk must not make the daemon write every
/// second). Its log lines are the storage health's now (RejectionRecorderStorageTests, StorageHealthTests).
final class RejectionFlushRetryTests: XCTestCase {
    let s: UInt64 = 1_000_000

    func testFailedFlushes_backOffFromOneSecondDoublingTo30_andStartOverAfterASuccess() {
        var retry = RejectionFlushRetry()
        var now: UInt64 = 5 * s
        var delays: [UInt64] = []
        for _ in 0..<8 {
            let retryAt = retry.failed(now: now)
            delays.append((retryAt - now) / s)
            now = retryAt
        }
        XCTAssertEqual(delays, [1, 2, 4, 8, 16, 30, 30, 30])
        XCTAssertEqual(retry.failures, 8)
        retry.succeeded()
        XCTAssertEqual(retry.failures, 0)
        XCTAssertEqual(retry.failed(now: now) - now, s, "the back-off starts over")
    }
}
