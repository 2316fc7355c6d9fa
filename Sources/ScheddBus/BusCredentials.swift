import Glibc

/// Who sent a method call, as the bus driver verified it (`SO_PEERCRED` at connect time, reported by
/// `GetConnectionCredentials`); never read from /proc (`SD_BUS_CREDS_AUGMENT` is not used: a caller can
/// exit and have its PID reused, so /proc data cannot back a decision).
public struct BusCredentials: Sendable, Equatable {
    /// The effective uid of the sender's process when it connected.
    public var euid: uid_t
    /// The sender's process id, when the bus driver told it (for logs, and for ScheddApps to open a
    /// pidfd). No pidfd comes with it: sd-bus 252 has no pidfd credentials and dbus-daemon 1.14 sends no
    /// `ProcessFD` (Debian 12); a newer stack could add one here.
    public var pid: pid_t?

    public init(euid: uid_t, pid: pid_t?) { self.euid = euid; self.pid = pid }
}
