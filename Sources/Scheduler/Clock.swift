import SchedCalendar
import Synchronization

/// A source of the current wall-clock instant. The engine never reads one: the daemon does and
/// passes `now` in. The system clock (`CLOCK_REALTIME`) is `SystemClock`, in ScheddService.
public protocol Clock: Sendable {
    var now: Instant { get }
}

/// A clock that stands still until told to move (`schedd run --fake-clock`, tests).
public final class FakeClock: Clock {
    private let current: Mutex<Instant>
    public init(_ start: Instant) { current = Mutex(start) }
    public var now: Instant { current.withLock { $0 } }
    /// Sets the reading; the caller tells the engine whether it was time passing or a step.
    public func set(_ instant: Instant) { current.withLock { $0 = instant } }
}
