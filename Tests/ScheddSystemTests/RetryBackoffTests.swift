import ScheddSystem
import XCTest

/// The one exponential back-off (failed firings, failed rejection flushes): doubling from the first delay to
/// the maximum, and starting over after `reset`.
final class RetryBackoffTests: XCTestCase {
    func testDelaysDoubleToTheMaximum_andStartOverAfterAReset() {
        var backoff = RetryBackoff(firstMicroseconds: 1_000_000, maxMicroseconds: 30_000_000)
        XCTAssertEqual((0..<7).map { _ in backoff.nextRetryDelay() / 1_000_000 }, [1, 2, 4, 8, 16, 30, 30])
        backoff.reset()
        XCTAssertEqual(backoff.nextRetryDelay(), 1_000_000)
        XCTAssertEqual(backoff.nextRetryDelay(), 2_000_000)
    }

    func testAMaximumThatIsNotAPowerOfTwoOfTheFirst_isReachedExactly() {
        var backoff = RetryBackoff(firstMicroseconds: 3, maxMicroseconds: 10)
        XCTAssertEqual((0..<4).map { _ in backoff.nextRetryDelay() }, [3, 6, 10, 10])
    }
}
