// The clock-change timerfd (`timerfd_create`/`timerfd_settime`): tells when the wall clock was set.
import CLinuxProcess
import Glibc

/// A `CLOCK_REALTIME` timerfd armed for the end of time with `TFD_TIMER_CANCEL_ON_SET`: its `read()`
/// fails with `ECANCELED` whenever the wall clock is set (`date -s`, NTP steps, resume) — systemd's
/// `time_change_fd()`. It never expires, so it costs no wake-ups.
public final class ClockChangeTimer {
    /// The descriptor to watch for readability.
    public let fd: Int32

    public init() throws(SystemCallError) {
        fd = timerfd_create(CLOCK_REALTIME, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        if fd < 0 { throw SystemCallError("create a clock-change timerfd", .current) }
        do { try arm() } catch { Glibc.close(fd); throw error }
    }

    deinit { Glibc.close(fd) }

    /// (Re)arms the timer; it must be re-armed after every change it reported.
    public func arm() throws(SystemCallError) {
        var spec = itimerspec()
        spec.it_value.tv_sec = Int.max
        if timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME) | Int32(TFD_TIMER_CANCEL_ON_SET), &spec, nil) < 0 {
            throw SystemCallError("arm the clock-change timerfd", .current)
        }
    }

    /// What a readable timerfd says.
    public enum Reading: Equatable, Sendable {
        /// The wall clock was set since the last arm (re-arm now).
        case clockChanged
        /// Nothing happened (spurious wake-up, or the end of time came).
        case nothing
    }

    /// Reads the timerfd. Throws on an unexpected error (the watch is then broken).
    public func read() throws(SystemCallError) -> Reading {
        var expirations: UInt64 = 0
        let n: Int
        do {
            n = try withUnsafeMutableBytes(of: &expirations) { raw in
                Result { () throws(Errno) in try FileDescriptor(rawValue: fd).read(into: raw) }
            }.get()
        } catch .canceled {
            return .clockChanged
        } catch .resourceTemporarilyUnavailable {
            return .nothing
        } catch {
            throw SystemCallError("read the clock-change timerfd", error)
        }
        if n == 8 { return .nothing }
        throw SystemCallError("read the clock-change timerfd", .ioError)
    }
}
