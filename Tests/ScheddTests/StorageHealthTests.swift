@testable import schedd
import Glibc
import SchedCalendar
import Scheduler
import ScheddService
import ScheddSystem
import XCTest

/// The storage-failure rules without a disk (issue 9 item 4): back-off 1 s doubling to 30 s, one log
/// line per minute while failing ("N more suppressed"), STATUS=/ERRNO= for systemd, and the recovery.
/// StorageFullTests causes the failure for real.
final class StorageHealthTests: XCTestCase {
    private let t0 = Instant(seconds: 1_772_946_000)  // 2026-03-08T05:00:00Z
    private let full = "COMMIT: database or disk is full (SQLite result code 13)"
    /// The store's failure behind `full`: the result code as a value, which the errno comes from.
    private let fullCause = StoreError(.io, "COMMIT: database or disk is full (SQLite result code 13)", sqliteCode: .full)

    private func at(_ seconds: Double) -> Instant { t0.adding(microseconds: Int64(seconds * 1_000_000)) }

    func testRateLimit_oneEventPerInterval_countsTheRest() {
        var limit = RateLimit(intervalMicroseconds: 10, burst: 2)
        XCTAssertEqual(limit.admit(now: 0), 0)
        XCTAssertEqual(limit.admit(now: 1), 0)
        XCTAssertNil(limit.admit(now: 2))
        XCTAssertNil(limit.admit(now: 9))
        XCTAssertEqual(limit.suppressed, 2)
        XCTAssertEqual(limit.admit(now: 10), 2, "a new interval says how many were held back")
        XCTAssertEqual(limit.suppressed, 0)
        XCTAssertEqual(limit.admit(now: 5), 0, "a step back starts a new interval")
        limit.reset()
        XCTAssertEqual(limit.admit(now: 11), 0)
    }

    func testFiringFailures_backOffExponentially_upToTheCap() {
        var health = StorageHealth()
        XCTAssertTrue(health.mayFire(at: t0))
        var now = t0
        var delays: [Int64] = []
        for _ in 0..<8 {
            _ = health.failed("delivering due notifications", full, cause: fullCause, now: now, backOff: true)
            let retry = health.retryAt!
            delays.append((retry.microseconds - now.microseconds) / 1_000_000)
            XCTAssertFalse(health.mayFire(at: retry.adding(microseconds: -1)))
            XCTAssertTrue(health.mayFire(at: retry))
            now = retry
        }
        XCTAssertEqual(delays, [1, 2, 4, 8, 16, 30, 30, 30])
        // The due timer waits for the back-off, but not for a due instant later than it.
        XCTAssertEqual(health.wakeUp(nextDue: t0), health.retryAt)
        XCTAssertEqual(health.wakeUp(nextDue: at(10_000)), at(10_000))
        XCTAssertNil(health.wakeUp(nextDue: nil))
    }

    func testCallFailures_countButDoNotDelayFirings() {
        var health = StorageHealth()
        _ = health.failed("Push", full, cause: fullCause, now: t0, backOff: false)
        XCTAssertTrue(health.isFailing)
        XCTAssertNil(health.retryAt)
        XCTAssertTrue(health.mayFire(at: t0))
    }

    func testLog_firstFailure_thenOneSummaryPerMinute_thenTheRecovery() {
        var health = StorageHealth()
        var lines: [String] = []
        var notes: [String] = []
        // 2 failures a second for 150 s.
        for i in 0..<300 {
            let report = health.failed("Push", full, cause: fullCause, now: at(Double(i) / 2), backOff: false)
            if let log = report.log { lines.append(log) }
            if let notify = report.notify { notes.append(notify) }
        }
        XCTAssertEqual(lines.count, 3, lines.joined(separator: "\n"))
        XCTAssertTrue(lines[0].hasPrefix("storage failure: Push: COMMIT: database or disk is full"), lines[0])
        XCTAssertTrue(lines[1].hasPrefix("storage still failing: 119 more suppressed; latest: Push:"), lines[1])
        XCTAssertTrue(lines[2].hasPrefix("storage still failing: 119 more suppressed"), lines[2])
        XCTAssertEqual(notes.count, 3)
        XCTAssertEqual(notes[0], "STATUS=Storage failing since 2026-03-08T05:00:00Z: \(full)\nERRNO=\(ENOSPC)")
        let recovered = health.succeeded(now: at(200), serving: "Serving org.schedd.Scheduler1 on the session bus")
        XCTAssertEqual(recovered.log, "storage recovered after 300 failures in 200 s; going on")
        XCTAssertEqual(recovered.notify, "STATUS=Serving org.schedd.Scheduler1 on the session bus\nERRNO=0")
        XCTAssertFalse(health.isFailing)
        XCTAssertNil(health.retryAt)
        XCTAssertEqual(health.succeeded(now: at(201), serving: "x"), StorageHealth.Report(), "nothing to report when healthy")
        // A new failure period starts over: logged at once, back-off from 1 s.
        XCTAssertNotNil(health.failed("delivering due notifications", full, cause: fullCause, now: at(202), backOff: true).log)
        XCTAssertEqual(health.retryAt, at(203))
    }

    func testErrno_fromTheSQLiteResultCode_notFromTheMessage() {
        XCTAssertEqual(StorageHealth.errno(for: .full), ENOSPC)
        XCTAssertEqual(StorageHealth.errno(for: SQLiteResultCode(778)), EIO, "SQLITE_IOERR_WRITE is an I/O error")
        XCTAssertEqual(StorageHealth.errno(for: SQLiteResultCode(13 | 256)), ENOSPC, "extended codes by their primary")
        XCTAssertEqual(StorageHealth.errno(for: .readOnly), EROFS)
        XCTAssertEqual(StorageHealth.errno(for: .cannotOpen), ENOENT)
        XCTAssertEqual(StorageHealth.errno(for: .noMemory), ENOMEM)
        XCTAssertEqual(StorageHealth.errno(for: nil), EIO)
        // A message that merely mentions a code does not decide the errno.
        var health = StorageHealth()
        let report = health.failed("Push", full, cause: StoreError(.io, full, sqliteCode: .ioError), now: t0, backOff: false)
        XCTAssertTrue(report.notify?.hasSuffix("ERRNO=\(EIO)") == true, "\(report)")
    }
}
