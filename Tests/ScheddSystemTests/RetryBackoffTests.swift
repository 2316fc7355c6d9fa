import ScheddSystem
import XCTest

/// The one exponential back-off (failed firings, failed rejection flushes): doubling from the first delay to
/// the maximum.
final class RetryBackoffTests: XCTestCase {
    func testDelaysDoubleToTheMaximum() {
        var backoff = RetryBackoff(firstMicroseconds: 1_000_000, maxMicroseconds: 30_000_000)
        XCTAssertEqual((0..<7).map { _ in backoff.nextRetryDelay() / 1_000_000 }, [1, 2, 4, 8, 16, 30, 30])
    }

    func testAMaximumThatIsNotAPowerOfTwoOfTheFirst_isReachedExactly() {
        var backoff = RetryBackoff(firstMicroseconds: 3, maxMicroseconds: 10)
        XCTAssertEqual((0..<4).map { _ in backoff.nextRetryDelay() }, [3, 6, 10, 10])
    }
}
