import ScheddSystem

/// When `RejectionRecorder` tries a failed flush of held rejections again.
///
/// While the disk is full, a flush that failed used to be retried every second. Now a failed flush is
/// retried with exponential back-off — 1 s doubling to `maxDelayMicroseconds` (30 s, as `StorageHealth`
/// backs off failed firings): after a failure at 10:00:00 the next attempts are at 10:00:01, :03, :07, :15,
/// :31, 10:01:01, and every 30 s after. The counts stay held in memory meanwhile, and List shows them
/// (`RejectionRecorder.merged`).
///
/// This decides only *when*. What the failure is reported as — the log line, its rate limit, the
/// recovery line, STATUS= and ERRNO= — is the daemon's storage health's (`PushConnector.StorageHooks`),
/// as for every other storage failure; this type used to log (and rate-limit) the failures itself, which
/// the storage monitor then logged a second time.
///
/// Pure state on monotonic microseconds; every method is O(1).
struct RejectionFlushRetry {
    static let firstDelayMicroseconds: Int64 = 1_000_000
    static let maxDelayMicroseconds: Int64 = 30_000_000

    /// Failed flushes since the last success.
    private(set) var failures = 0
    private var backoff = RetryBackoff(firstMicroseconds: firstDelayMicroseconds, maxMicroseconds: maxDelayMicroseconds)

    /// A flush failed at `now`: when to try again (monotonic µs).
    mutating func failed(now: UInt64) -> UInt64 {
        failures += 1
        return now &+ UInt64(backoff.nextRetryDelay())
    }

    /// A flush succeeded: the back-off starts over.
    mutating func succeeded() {
        self = RejectionFlushRetry()
    }
}
