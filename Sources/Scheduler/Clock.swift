import Glibc
import SchedCalendar
import Synchronization

/// A source of the current wall-clock instant. The engine never reads one: the daemon does and
/// passes `now` in.
public protocol Clock: Sendable {
    var now: Instant { get }
}

/// `CLOCK_REALTIME`.
public struct SystemClock: Clock {
    public init() {}
    public var now: Instant {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Instant(microseconds: Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000)
    }
}

/// A clock that stands still until told to move (`schedd run --fake-clock`, tests).
public final class FakeClock: Clock {
    private let current: Mutex<Instant>
    public init(_ start: Instant) { current = Mutex(start) }
    public var now: Instant { current.withLock { $0 } }
    /// Sets the reading; the caller tells the engine whether it was time passing or a step.
    public func set(_ instant: Instant) { current.withLock { $0 = instant } }
}
