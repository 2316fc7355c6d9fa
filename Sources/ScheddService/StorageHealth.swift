import Glibc
import SchedCalendar
import Scheduler
import ScheddSystem

/// Whether the database works, and what the daemon does while it does not (CONTRACT §9, "Storage
/// failure"; README, "Faults"): a failed firing is retried with exponential back-off, 1 s doubling to
/// `maxRetryDelayMicroseconds`, instead of at once; the log has the first failure, then one summary
/// line per `summaryIntervalMicroseconds` ("N more suppressed"), then the recovery; systemd hears
/// STATUS= and ERRNO= at each of those moments. Nothing here touches the disk: a retry that succeeds
/// is the recovery, so the daemon goes on by itself once the disk has room again.
///
/// Pure state driven by the daemon's loop; every method is O(1).
public struct StorageHealth: Sendable {
    /// The first retry of a failed firing comes this long after the failure.
    public static let firstRetryDelayMicroseconds: Int64 = 1_000_000
    /// The back-off doubles up to this (30 s): how long a firing may wait, at most, after the disk
    /// has room again — well within the default grace, so a due notification is then shown late, not missed.
    public static let maxRetryDelayMicroseconds: Int64 = 30_000_000
    /// At most one summary line per minute while failures go on.
    public static let summaryIntervalMicroseconds: Int64 = 60_000_000

    public init() {}

    /// What to tell the log and the service manager after an event; nil fields mean nothing to say.
    public struct Report: Equatable, Sendable {
        public var log: String?
        /// The STATUS=/ERRNO= assignments for `sd_notify`.
        public var notify: String?
        public init(log: String? = nil, notify: String? = nil) { self.log = log; self.notify = notify }
    }

    /// When the failures began; nil while storage works.
    public private(set) var failingSince: Instant?
    /// Failures since `failingSince` (calls and firings).
    public private(set) var failures = 0
    /// No firing is attempted before this instant (nil: at once).
    public private(set) var retryAt: Instant?
    private var backoff = RetryBackoff(firstMicroseconds: firstRetryDelayMicroseconds, maxMicroseconds: maxRetryDelayMicroseconds)
    private var limit = RateLimit(intervalMicroseconds: summaryIntervalMicroseconds, burst: 1)

    public var isFailing: Bool { failingSince != nil }

    /// Whether a due firing may be attempted at `now` (false while backing off).
    public func mayFire(at now: Instant) -> Bool { retryAt.map { now >= $0 } ?? true }

    /// When the due timer should wake: the next due, or the end of the back-off if later.
    public func wakeUp(nextDue: Instant?) -> Instant? {
        guard let nextDue else { return nil }
        guard let retryAt else { return nextDue }
        return max(nextDue, retryAt)
    }

    /// A storage operation failed at `now` with `message` (`what` names it: `delivering due
    /// notifications`, `Push`). A failed firing (`backOff`) moves the next attempt out by the current
    /// delay and doubles it; a failed call only counts.
    public mutating func failed(_ what: String, _ message: String, cause: StoreError? = nil, now: Instant,
                                backOff: Bool) -> Report {
        let first = failingSince == nil
        if first { failingSince = now }
        failures += 1
        if backOff {
            retryAt = now.adding(microseconds: backoff.nextRetryDelay())
        }
        let retry = retryAt.map { "; next firing attempt at \($0.rfc3339)" } ?? ""
        guard let heldBack = limit.admit(now: now.microseconds) else { return Report() }
        let errnoValue = Self.errno(for: cause?.sqliteCode)
        let notify = "STATUS=Storage failing since \(failingSince!.rfc3339): \(message)\nERRNO=\(errnoValue)"
        if first {
            return Report(log: "storage failure: \(what): \(message); due notifications are retried with back-off "
                          + "(1 s doubling to \(Self.maxRetryDelayMicroseconds / 1_000_000) s)\(retry); further "
                          + "failures are summed up once a minute", notify: notify)
        }
        return Report(log: "storage still failing: \(heldBack) more suppressed; latest: \(what): \(message)\(retry)",
                      notify: notify)
    }

    /// A storage write succeeded at `now`: if it was failing, the recovery to report (and `serving`, the
    /// daemon's normal STATUS=, for systemd).
    public mutating func succeeded(now: Instant, serving: String) -> Report {
        guard let since = failingSince else { return Report() }
        let seconds = (now.microseconds - since.microseconds) / 1_000_000
        let report = Report(log: "storage recovered after \(failures) failures in \(seconds) s; going on",
                            notify: "STATUS=\(serving)\nERRNO=0")
        self = StorageHealth()
        return report
    }

    /// The errno that best names a storage failure, from its SQLite result code (a value the store
    /// keeps, never parsed out of a message): SQLITE_FULL → ENOSPC, SQLITE_READONLY → EROFS,
    /// SQLITE_CANTOPEN → ENOENT, SQLITE_NOMEM → ENOMEM, anything else or no code → EIO.
    public static func errno(for code: SQLiteResultCode?) -> Int32 {
        switch code?.primary {
        case .full?: ENOSPC
        case .readOnly?: EROFS
        case .cannotOpen?: ENOENT
        case .noMemory?: ENOMEM
        default: EIO
        }
    }
}
