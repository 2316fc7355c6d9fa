import Scheduler

extension PushConnector {
    /// Where the connector tells the daemon's storage health (CONTRACT §9, "Storage failure") how its own
    /// writes went: the daemon's `StorageMonitor`, which ScheddPush cannot name (it does not depend on
    /// ScheddService), so the host hands it in as two closures.
    ///
    /// The monitor owns the report: it logs the first failure, then at most one summary line a minute, then
    /// the recovery, and sets the service manager's STATUS= and ERRNO= at each of those moments (a full disk:
    /// `STATUS=Storage failing since 2026-03-01T10:00:01Z: database or disk is full`, `ERRNO=28`). So a
    /// part that reports here writes no log line of its own about that failure or its recovery: one failure,
    /// one line. Reporting decides nothing about *when* to try again; the part keeps its own back-off
    /// (`RejectionFlushRetry`), and the monitor counts the failure without moving the firings' back-off.
    ///
    /// Reported today: every write the connector makes itself — registration saves and deletes (Register,
    /// Unregister, a distributor's NewEndpoint and Unregistered, the distributor chosen for a registration),
    /// the replay-window record of a message that decrypts but is not a valid push (`MessageIntake`), and
    /// `RejectionRecorder`'s writes (the immediate one in `record` and the timer's `flush`). Not reported
    /// here: the push itself and the replay record in its transaction (`Host.apply`), which go through the
    /// daemon's service, and that reports them to the same monitor (reporting them here would count each
    /// failure twice). Reads are never reported: a read that succeeds on a full disk says nothing about
    /// whether writes work again, so it must not end a failure period.
    /// Both closures run on the loop thread and are O(1).
    public struct StorageHooks {
        /// A write of `what` (e.g. "recording a rejected push of org.example.Reminders") failed with `error`.
        public let failed: (_ what: String, _ error: StoreError) -> Void
        /// A write succeeded: ends a failure period, if there was one.
        public let succeeded: () -> Void

        public init(failed: @escaping (_ what: String, _ error: StoreError) -> Void, succeeded: @escaping () -> Void) {
            self.failed = failed; self.succeeded = succeeded
        }
    }
}

extension PushConnector.StorageHooks {
    /// Runs the store write `body` and reports how it went: `succeeded()` and its value, or
    /// `failed(what, error)` and the same error rethrown, so the caller fails exactly as without the report.
    ///
    /// `what` names the write and the app ("deleting the push registration of org.example.Reminders"); it
    /// is built only when the write fails. For writes only (see "Reads are never reported" above).
    func reporting<T>(_ what: @autoclosure () -> String, _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        let value: T
        do { value = try body() } catch {
            failed(what(), error)
            throw error
        }
        succeeded()
        return value
    }
}
