// The kernel's clocks (`clock_gettime`): the wall clock and the monotonic clock.
import Glibc

/// Readings of `CLOCK_REALTIME` and `CLOCK_MONOTONIC`.
public enum SystemTime {
    /// `CLOCK_REALTIME` in microseconds since the Unix epoch (the wall clock: it steps when set).
    public static var realtimeMicroseconds: Int64 { microseconds(CLOCK_REALTIME) }

    /// `CLOCK_MONOTONIC` in microseconds (since boot, never steps back).
    public static var monotonicMicroseconds: Int64 { microseconds(CLOCK_MONOTONIC) }

    /// `CLOCK_BOOTTIME` in microseconds: like `CLOCK_MONOTONIC`, but it also counts time suspended, so
    /// the growth of `boottime − monotonic` is how long the machine slept (CONTRACT §11 "Resume").
    public static var boottimeMicroseconds: Int64 { microseconds(CLOCK_BOOTTIME) }

    /// The id of `CLOCK_REALTIME`, for a C library that arms timers on a clock (sd-event).
    public static var realtimeClockID: clockid_t { clockid_t(CLOCK_REALTIME) }
    /// The id of `CLOCK_MONOTONIC`, for a C library that arms timers on a clock (sd-event).
    public static var monotonicClockID: clockid_t { clockid_t(CLOCK_MONOTONIC) }

    /// `CLOCK_MONOTONIC` in milliseconds.
    public static var monotonicMilliseconds: Int64 { monotonicMicroseconds / 1000 }

    /// `time(2)`: whole seconds since the epoch.
    public static var realtimeSeconds: Int { Int(time(nil)) }

    /// `nanosleep(2)` for `milliseconds` (resumed after a signal until the whole time has passed).
    public static func sleep(milliseconds: Int) {
        var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    private static func microseconds(_ clock: clockid_t) -> Int64 {
        var now = timespec()
        clock_gettime(clock, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }
}
