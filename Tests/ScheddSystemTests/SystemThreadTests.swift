// ScheddSystem's threads (SystemThread, ThreadIdentity) and clock ids against the real kernel.
import Foundation
import ScheddSystem
import Synchronization
import XCTest

final class SystemThreadTests: XCTestCase {
    /// The body runs on another thread (its identity differs from the caller's and equals itself), under
    /// the given name as the kernel reports it (/proc/thread-self/comm), and `join` returns after it.
    func testStart_runsTheBodyOnANamedThread_andJoinWaitsForIt() throws {
        let seen = Mutex<(name: String, differs: Bool, equalsItself: Bool)?>(nil)
        let caller = ThreadIdentity.current
        let thread = try XCTUnwrap(SystemThread.start(name: "schedd-test-thread-name-too-long") {
            let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
            let me = ThreadIdentity.current
            seen.withLock { $0 = (name.trimmingCharacters(in: .newlines), me != caller, me == ThreadIdentity.current) }
        })
        thread.join()
        let result = try XCTUnwrap(seen.withLock { $0 }, "join returned before the body ran")
        XCTAssertEqual(result.name, "schedd-test-thr", "the kernel keeps the first 15 bytes of the name")
        XCTAssertTrue(result.differs)
        XCTAssertTrue(result.equalsItself)
        XCTAssertEqual(ThreadIdentity.current, caller)
    }

    /// A detached thread still runs its body (waited for through a semaphore, not a sleep).
    func testDetachedThread_runsItsBody() throws {
        let done = DispatchSemaphore(value: 0)
        let thread = try XCTUnwrap(SystemThread.start { done.signal() })
        thread.detach()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
    }

    /// The realtime clock SystemTime reads is the one Foundation reads (within a second), and the
    /// monotonic and boot-time clocks never run backwards between two reads.
    func testClocks_readTheKernelsClocks() {
        let foundation = Int64(Date().timeIntervalSince1970 * 1_000_000)
        XCTAssertLessThan(abs(SystemTime.realtimeMicroseconds - foundation), 1_000_000)
        XCTAssertLessThan(abs(Int64(SystemTime.realtimeSeconds) - foundation / 1_000_000), 2)
        let m1 = SystemTime.monotonicMicroseconds, b1 = SystemTime.boottimeMicroseconds
        let m2 = SystemTime.monotonicMicroseconds, b2 = SystemTime.boottimeMicroseconds
        XCTAssertLessThanOrEqual(m1, m2)
        XCTAssertLessThanOrEqual(b1, b2)
        XCTAssertGreaterThanOrEqual(b1, m1, "CLOCK_BOOTTIME counts what CLOCK_MONOTONIC does, plus sleep")
        XCTAssertNotEqual(SystemTime.realtimeClockID, SystemTime.monotonicClockID)
    }
}
