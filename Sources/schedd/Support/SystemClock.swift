// The system wall clock as the engine's `Clock` (the Scheduler target holds no system clock).
import SchedCalendar
import Scheduler
import ScheddSystem

/// `CLOCK_REALTIME`, through ScheddSystem.
struct SystemClock: Clock {
    var now: Instant { Instant(microseconds: SystemTime.realtimeMicroseconds) }
}
