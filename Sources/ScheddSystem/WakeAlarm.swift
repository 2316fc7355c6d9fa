// The wake timer (CONTRACT §11 "Wake"): a CLOCK_REALTIME_ALARM timerfd, which wakes a sleeping machine
// through the RTC's alarm — systemd's WakeSystem= and KAlarm's kernelwakealarm do the same.
import CLinuxProcess
import Glibc

/// Whether this process can arm a wake timer, and why not: `probe` creates a CLOCK_REALTIME_ALARM
/// timerfd (EPERM: no CAP_WAKE_ALARM; EINVAL/ENOTSUP: no alarm timers in the kernel) and looks for an RTC
/// with an alarm (`/sys/class/rtc/rtcN/wakealarm`; without one the timer fires while awake but never wakes
/// the machine, so schedd does not claim it).
public enum WakeAlarmSupport {
    /// Nil when a wake timer can be armed; else why not, in words for `schedd status` and the log.
    /// `rtcDirectory` is a parameter so tests can point it at a directory of their own.
    public static func probe(rtcDirectory: String = "/sys/class/rtc") -> String? {
        do {
            _ = try WakeAlarmTimer()
        } catch {
            return error.errno == .notPermitted
                ? "no CAP_WAKE_ALARM (timerfd_create(CLOCK_REALTIME_ALARM): EPERM; systemd ≥ 254 grants it to user sessions)"
                : "the kernel has no alarm timers (timerfd_create(CLOCK_REALTIME_ALARM): \(error.errno))"
        }
        let entries: [String]
        do {
            entries = try FileSystem.directoryEntries(rtcDirectory)
        } catch {
            return "no RTC alarm device (\(rtcDirectory): \(error))"
        }
        let clocks = entries.filter { $0.hasPrefix("rtc") }.sorted()
        if clocks.isEmpty { return "no RTC alarm device (\(rtcDirectory) is empty)" }
        if clocks.contains(where: { (try? FileSystem.status("\(rtcDirectory)/\($0)/wakealarm")) != nil }) { return nil }
        return "no RTC alarm device (\(clocks.joined(separator: ", ")) in \(rtcDirectory) without wakealarm)"
    }
}

/// A `CLOCK_REALTIME_ALARM` timerfd: armed at an absolute wall-clock instant, it wakes the machine from
/// suspend when it expires (needs CAP_WAKE_ALARM). Watch `fd` for readability; `read()` consumes an expiry.
public final class WakeAlarmTimer {
    public let fd: Int32

    public init() throws(SystemCallError) {
        fd = timerfd_create(CLOCK_REALTIME_ALARM, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        if fd < 0 { throw SystemCallError("create a CLOCK_REALTIME_ALARM timerfd", .current) }
    }

    deinit { Glibc.close(fd) }

    /// Arms it for the wall-clock instant `microseconds` (since the epoch; ≥ 1).
    public func arm(atRealtimeMicroseconds microseconds: Int64) throws(SystemCallError) {
        var spec = itimerspec()
        let value = max(1, microseconds)
        spec.it_value.tv_sec = Int(value / 1_000_000)
        spec.it_value.tv_nsec = Int(value % 1_000_000) * 1000
        if timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME), &spec, nil) < 0 {
            throw SystemCallError("arm the wake timer", .current)
        }
    }

    /// Disarms it.
    public func disarm() throws(SystemCallError) {
        var spec = itimerspec()
        if timerfd_settime(fd, 0, &spec, nil) < 0 { throw SystemCallError("disarm the wake timer", .current) }
    }

    /// How long until it expires, in microseconds, from `timerfd_gettime`. After `disarm` the kernel still
    /// reports the old expiry for alarm clocks (it does not check that the timer is active).
    public func remainingMicroseconds() throws(SystemCallError) -> Int64 {
        var value = itimerspec()
        if timerfd_gettime(fd, &value) < 0 { throw SystemCallError("read the wake timer", .current) }
        return Int64(value.it_value.tv_sec) * 1_000_000 + Int64(value.it_value.tv_nsec) / 1000
    }

    /// Consumes an expiry (nothing when none is pending).
    public func read() {
        var expirations: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &expirations) { raw in
            try? FileDescriptor(rawValue: fd).read(into: raw)
        }
    }
}
