import ScheddSystem

/// When `RejectionRecorder` tries a failed flush of held rejections again, and which failures it logs.
///
/// While the disk is full, a flush that failed used to be retried every second, each retry logging an
/// error line: one line a second for as long as the failure lasted. Now a failed flush is retried with
/// exponential back-off — 1 s doubling to `maxDelayMicroseconds` (30 s, as `StorageHealth` backs off failed
/// firings) — the log has the first failure, then at most one line per `logIntervalMicroseconds` naming how
/// many were not logged, and a line when a flush succeeds again. The counts stay held in memory meanwhile,
/// and List shows them (`RejectionRecorder.merged`).
///
/// Pure state on monotonic microseconds; every method is O(1).
struct RejectionFlushRetry {
    static let firstDelayMicroseconds: Int64 = 1_000_000
    static let maxDelayMicroseconds: Int64 = 30_000_000
    /// At most one failure line per minute after the first.
    static let logIntervalMicroseconds: Int64 = 60_000_000

    /// Failed flushes since the last success.
    private(set) var failures = 0
    private var backoff = RetryBackoff(firstMicroseconds: firstDelayMicroseconds, maxMicroseconds: maxDelayMicroseconds)
    private var limit = RateLimit(intervalMicroseconds: logIntervalMicroseconds, burst: 1)

    /// A flush of `apps` apps' held rejections failed at `now` with `message`: when to try again, and the
    /// line to log (nil: counted only, the rate limit held it back).
    mutating func failed(now: UInt64, apps: Int, message: String) -> (retryAt: UInt64, log: String?) {
        failures += 1
        let delay = backoff.nextRetryDelay()
        let retryAt = now &+ UInt64(delay)
        guard let heldBack = limit.admit(now: Int64(clamping: now)) else { return (retryAt, nil) }
        let retry = "next attempt in \(delay / 1_000_000) s"
        if failures == 1 {
            return (retryAt, "cannot record \(apps) app(s)' rejected pushes: \(message); they are held in memory, "
                    + "\(retry) (back-off doubling to \(Self.maxDelayMicroseconds / 1_000_000) s)")
        }
        return (retryAt, "still cannot record \(apps) app(s)' rejected pushes (\(failures) attempts"
                + (heldBack > 0 ? ", \(heldBack) not logged" : "") + "): \(message); \(retry)")
    }

    /// A flush succeeded: the line to log when failures preceded it (nil otherwise); the back-off starts over.
    mutating func succeeded(apps: Int) -> String? {
        defer { self = RejectionFlushRetry() }
        guard failures > 0 else { return nil }
        return "recorded \(apps) app(s)' held rejected pushes after \(failures) failed attempt(s)"
    }
}
