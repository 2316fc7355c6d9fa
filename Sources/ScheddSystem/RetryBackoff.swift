/// Exponential back-off for retrying a failed operation: the first retry `firstMicroseconds` after the
/// failure, each later one twice as far, up to `maxMicroseconds`. After a success its owner starts over with
/// a fresh value (both owners replace their whole state then: `self = StorageHealth()`, `self = RejectionFlushRetry()`).
/// Shared by the storage-health part (failed firings) and the UnifiedPush rejection recorder (failed flushes).
///
/// Pure. O(1) per call.
public struct RetryBackoff: Sendable {
    public let firstMicroseconds: Int64
    public let maxMicroseconds: Int64
    private var nextDelay: Int64

    public init(firstMicroseconds: Int64, maxMicroseconds: Int64) {
        precondition(firstMicroseconds > 0 && maxMicroseconds >= firstMicroseconds,
                     "a back-off needs a positive first delay no larger than its maximum")
        self.firstMicroseconds = firstMicroseconds
        self.maxMicroseconds = maxMicroseconds
        nextDelay = firstMicroseconds
    }

    /// The delay before the next retry after one more failure; the delay after it doubles, up to the maximum.
    public mutating func nextRetryDelay() -> Int64 {
        defer { nextDelay = min(nextDelay * 2, maxMicroseconds) }
        return nextDelay
    }
}
