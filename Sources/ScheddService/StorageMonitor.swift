import SchedCalendar
import Scheduler

/// The storage-health part (CONTRACT §9, "Storage failure"): owns whether the database works — the
/// `StorageHealth` state (back-off, rate-limited reports) — and tells the log and the service manager
/// through `report`. The other parts only say "this failed" or "this write succeeded"; none reads or
/// changes the state itself. O(1) per event.
public final class StorageMonitor {
    private var health = StorageHealth()
    private let now: () -> Instant
    private let serving: () -> String
    private let report: (StorageHealth.Report, _ isError: Bool) -> Void

    /// `now`: the daemon's clock; `serving`: its normal STATUS= text; `report`: logs the line and
    /// sends the sd_notify assignments of a report (an error report when `isError`).
    public init(now: @escaping () -> Instant, serving: @escaping () -> String,
                report: @escaping (StorageHealth.Report, _ isError: Bool) -> Void) {
        self.now = now; self.serving = serving; self.report = report
    }

    public var isFailing: Bool { health.isFailing }

    /// Whether a due firing may be attempted at `now` (false while backing off).
    public func mayFire(at now: Instant) -> Bool { health.mayFire(at: now) }

    /// When the due timer should wake for `nextDue`: not before the back-off ends.
    public func wakeUp(nextDue: Instant?) -> Instant? { health.wakeUp(nextDue: nextDue) }

    /// Records a storage failure of `what`; logs and notifies only what the rate limit lets through.
    /// A failed firing (`backOff`) moves the next attempt out.
    public func failed(_ what: String, _ failure: ServiceFailure, backOff: Bool) {
        report(health.failed(what, failure.message, cause: failure.storeCause, now: now(), backOff: backOff), true)
    }

    /// A write succeeded: ends a failure period (and its back-off) if there was one.
    public func succeeded() {
        guard health.isFailing else { return }
        report(health.succeeded(now: now(), serving: serving()), false)
    }
}
