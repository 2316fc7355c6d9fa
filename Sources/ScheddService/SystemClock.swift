// The system wall clock as the engine's `Clock` (the Scheduler target holds no system clock): the
// service's clock part (ServiceClock) runs on it unless on a fake clock.
import SchedCalendar
import Scheduler
import ScheddSystem

/// `CLOCK_REALTIME`, through ScheddSystem.
public struct SystemClock: Clock {
    public init() {}
    public var now: Instant { Instant(microseconds: SystemTime.realtimeMicroseconds) }
}
