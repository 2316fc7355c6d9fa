import Glibc
import CLinuxProcess

/// The kernel calls behind pinning a caller's process (docs/apps.md "Identity"): a pidfd of a PID,
/// whether a pidfd's process is still alive, which PID a pidfd refers to, when a process started, and
/// the boot-time clock those start times are measured on. Each is a syscall or a small procfs read.
public enum ProcessPin {
    /// A pidfd for `pid` (close-on-exec), owned by the caller; throws the errno text.
    public static func open(pid: Int32) throws(CallerIdentityError) -> Int32 {
        let fd = pidfd_open(pid, 0)
        guard fd >= 0 else {
            let code = errno
            throw CallerIdentityError(.unattributable, "cannot pin the caller's process \(pid): \(String(cString: strerror(code)))")
        }
        return fd
    }

    /// False once the process of `pidfd` has exited (a pidfd polls readable then).
    public static func isAlive(_ pidfd: Int32) -> Bool {
        var poller = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) == 0
    }

    /// The PID `pidfd` refers to in this PID namespace (`Pid:` of /proc/self/fdinfo/FD); nil when it
    /// cannot be read, -1 when the process has been reaped.
    public static func pid(of pidfd: Int32) -> Int32? {
        guard let bytes = ProcessInspector.readSmallFile("/proc/self/fdinfo/\(pidfd)", limit: 4096) else { return nil }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("Pid:") {
            return Int32(line.dropFirst(4).trimmingPrefix(while: { $0 == " " || $0 == "\t" }))
        }
        return nil
    }

    /// Now on CLOCK_BOOTTIME, in µs (the clock of `/proc/PID/stat`'s start time).
    public static func bootTimeMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return UInt64(now.tv_sec) &* 1_000_000 &+ UInt64(now.tv_nsec / 1000)
    }

    /// The start time (field 22) of a `/proc/PID/stat` line, in µs since boot; nil when malformed. The
    /// command (field 2) may hold spaces and parentheses, so fields are counted after the last `)`.
    public static func startTime(statLine bytes: [UInt8]) -> UInt64? {
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        // After ")": field 3 (state) is fields[0], so field 22 is fields[19].
        guard fields.count > 19, let ticks = UInt64(String(decoding: fields[19], as: UTF8.self)) else { return nil }
        let hz = UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))
        return ticks &* (1_000_000 / hz)
    }
}
