import XCTest
import ScheddDesktop

/// The circuit breaker's two states and their transitions.
final class CircuitBreakerTests: XCTestCase {
    func testStartsClosed() {
        let breaker = CircuitBreaker(timeoutMicroseconds: 2_000_000)
        XCTAssertFalse(breaker.isOpen)
        XCTAssertNil(breaker.reason)
    }

    func testTimeoutOpens_withTheReasonHistoryRecords() {
        var breaker = CircuitBreaker(timeoutMicroseconds: 2_000_000)
        XCTAssertTrue(breaker.open(afterTimeoutOf: "Notify"))
        XCTAssertTrue(breaker.isOpen)
        XCTAssertEqual(breaker.reason,
                       "notification server did not answer Notify within 2.0 s; not called again until it restarts")
    }

    func testSecondTimeout_keepsTheFirstReason_andReportsNoNewOpening() {
        var breaker = CircuitBreaker(timeoutMicroseconds: 500_000)
        XCTAssertTrue(breaker.open(afterTimeoutOf: "GetCapabilities"))
        XCTAssertFalse(breaker.open(afterTimeoutOf: "Notify"), "opening an open circuit is not a new opening")
        XCTAssertEqual(breaker.reason,
                       "notification server did not answer GetCapabilities within 0.5 s; not called again until it restarts")
    }

    func testReset_closes_andAnotherTimeoutOpensAgain() {
        var breaker = CircuitBreaker(timeoutMicroseconds: 2_000_000)
        _ = breaker.open(afterTimeoutOf: "Notify")
        breaker.reset()
        XCTAssertFalse(breaker.isOpen)
        XCTAssertNil(breaker.reason)
        XCTAssertTrue(breaker.open(afterTimeoutOf: "CloseNotification"))
        XCTAssertEqual(breaker.reason?.hasPrefix("notification server did not answer CloseNotification"), true)
    }
}
