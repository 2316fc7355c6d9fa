import CSystemd
import Glibc

/// Notices wall-clock changes at once, without polling: a `CLOCK_REALTIME` timerfd armed with
/// `TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET` for the end of time, whose `read()` fails with
/// `ECANCELED` whenever the clock is set (`date -s`, NTP steps, `clock_settime`) — systemd's
/// `time_change_fd()`. It never expires, so it costs no wake-ups.
final class ClockChangeWatch {
    let fd: Int32

    init() throws(SystemFailure) {
        fd = timerfd_create(CLOCK_REALTIME, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        if fd < 0 { throw SystemFailure(errno: errno, "cannot create a clock-change timerfd") }
        try arm()
    }

    deinit { close(fd) }

    private func arm() throws(SystemFailure) {
        var spec = itimerspec()
        spec.it_value.tv_sec = Int.max
        if timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME) | Int32(TFD_TIMER_CANCEL_ON_SET), &spec, nil) < 0 {
            throw SystemFailure(errno: errno, "cannot arm the clock-change timerfd")
        }
    }

    /// Called when `fd` is readable: true when the wall clock was set since the last call. Re-arms.
    func consumeChange() -> Bool {
        var expirations: UInt64 = 0
        let n = read(fd, &expirations, 8)
        let changed = n < 0 && errno == ECANCELED
        if changed || n == 8 { try? arm() }
        return changed
    }
}
