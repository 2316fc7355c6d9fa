import ScheddBus

/// schedd's D-Bus names (README, "D-Bus API"): the bus name, object path and versioned interface,
/// and the error names the daemon replies with. The one copy: the daemon serves and replies with
/// these, ScheddClient, ScheddTestKit and the CLI call with them. An incompatible change becomes
/// `org.schedd.Scheduler2`, served next to this one.
public enum SchedulerNames {
    public static let service = "org.schedd.Scheduler1"
    public static let objectPath = "/org/schedd/Scheduler1"
    public static let interface = "org.schedd.Scheduler1"

    /// A method of org.schedd.Scheduler1.
    package static func method(_ member: String) -> BusMethod {
        BusMethod(destination: service, path: objectPath, interface: interface, member: member)
    }

    /// `org.freedesktop.DBus.Peer.Ping` on the bus daemon: a round trip that orders earlier messages.
    package static let busPing = BusMethod(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                           interface: "org.freedesktop.DBus.Peer", member: "Ping")

    /// The standard D-Bus error for a caller that may not make a call (the bus policy or the daemon's
    /// caller check).
    public static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
}

/// The D-Bus error names of org.schedd.Scheduler1; each reply carries the one-line message the CLI
/// prints. `ScheddError.Code` mirrors each (`ScheddError(BusError)`).
public enum SchedulerErrorName: String, Sendable, CaseIterable {
    /// A push broke a rule of CONTRACT §1 (the message names the member and the rule). CLI exit 1.
    case invalidPush = "org.schedd.Scheduler1.Error.InvalidPush"
    /// An argument other than a push is malformed or unknown (a zone, a time). CLI exit 1.
    case invalidArgument = "org.schedd.Scheduler1.Error.InvalidArgument"
    /// The thing named does not exist. CLI exit 1.
    case notFound = "org.schedd.Scheduler1.Error.NotFound"
    /// A clock operation other than ClockShow on a daemon running the real clock. CLI exit 1.
    case notFakeClock = "org.schedd.Scheduler1.Error.NotFakeClock"
    /// The database failed; nothing was changed. CLI exit 3.
    case storage = "org.schedd.Scheduler1.Error.Storage"
    /// The call itself is malformed (wrong member or arguments). CLI exit 2.
    case usage = "org.schedd.Scheduler1.Error.Usage"
    /// A push would take its app over the pending quota (`--max-pending-per-app`); nothing was stored. CLI exit 1.
    case quotaExceeded = "org.schedd.Scheduler1.Error.QuotaExceeded"
}
