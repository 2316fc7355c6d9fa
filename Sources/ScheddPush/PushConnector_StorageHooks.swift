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
    /// Reported today: `RejectionRecorder`'s writes (the immediate one in `record` and the timer's `flush`).
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
