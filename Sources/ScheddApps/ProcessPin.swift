import ScheddSystem

/// What pinning a caller's process needs beyond ProcessInspector (docs/apps.md "Identity"): a pidfd of
/// a PID, whether its process is alive, which PID a pidfd refers to, when a process started, and the
/// boot-time clock those start times are measured on. The syscalls are ScheddSystem's.
public enum ProcessPin {
    /// A pidfd for `pid`, owned by the caller (close it); throws the errno text.
    public static func open(pid: Int32) throws(CallerIdentityError) -> ProcessDescriptor {
        do { return try ProcessDescriptor.open(pid: pid) } catch {
            throw CallerIdentityError(.unattributable, "cannot pin the caller's process \(pid): \(error)")
        }
    }

    /// Now on CLOCK_BOOTTIME, in µs (the clock of `/proc/PID/stat`'s start time).
    public static func bootTimeMicroseconds() -> UInt64 { CurrentProcess.bootTimeMicroseconds }

    /// The start time (field 22) of a `/proc/PID/stat` line, in µs since boot, rounded down to whole
    /// clock ticks; nil when malformed. The command (field 2) may hold spaces and parentheses, so
    /// fields are counted after the last `)`.
    public static func startTime(statLine bytes: [UInt8]) -> UInt64? {
        guard let close = bytes.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        // After ")": field 3 (state) is fields[0], so field 22 is fields[19].
        guard fields.count > 19, let ticks = UInt64(String(decoding: fields[19], as: UTF8.self)) else { return nil }
        return ticks &* (1_000_000 / CurrentProcess.clockTicksPerSecond)
    }
}
