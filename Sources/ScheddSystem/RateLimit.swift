/// A rate limit on repeated events, after systemd's `RateLimit`/`ratelimit_below()`: at most `burst`
/// events pass per `intervalMicroseconds`; the rest are counted, and the first event of a later
/// interval learns how many were held back, so a log says "N more suppressed" instead of N lines.
///
/// Pure: the caller passes the time (µs on any monotonic or wall scale; a clock step back starts a new
/// interval). O(1) per event.
public struct RateLimit: Sendable {
    public let intervalMicroseconds: Int64
    public let burst: Int
    private var intervalStart: Int64?
    private var passed = 0
    /// Events held back since the last one that passed.
    public private(set) var suppressed = 0

    public init(intervalMicroseconds: Int64, burst: Int) {
        precondition(intervalMicroseconds > 0 && burst > 0, "a rate limit needs a positive interval and burst")
        self.intervalMicroseconds = intervalMicroseconds
        self.burst = burst
    }

    /// Records an event at `now`: nil when it is held back (counted in `suppressed`), else how many
    /// were held back before it (0 usually), which are then forgotten.
    public mutating func admit(now: Int64) -> Int? {
        if let start = intervalStart, now >= start, now - start < intervalMicroseconds {
            guard passed < burst else {
                suppressed += 1
                return nil
            }
        } else {
            intervalStart = now
            passed = 0
        }
        passed += 1
        defer { suppressed = 0 }
        return suppressed
    }

    /// Forgets the current interval and the count (after a recovery, the next event is logged at once).
    public mutating func reset() {
        intervalStart = nil
        passed = 0
        suppressed = 0
    }
}
