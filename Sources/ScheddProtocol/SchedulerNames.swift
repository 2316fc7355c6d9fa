/// schedd's D-Bus names (README, "D-Bus API"): the bus name, object path and versioned interface,
/// and the error names the daemon replies with. The one copy, in a target of its own with no
/// dependencies: the daemon (ScheddService, schedd run) serves and replies with these, ScheddClient,
/// ScheddTestKit and the CLI call with them. An incompatible change becomes `org.schedd.Scheduler2`,
/// served next to this one.
public enum SchedulerNames {
    public static let service = "org.schedd.Scheduler1"
    public static let objectPath = "/org/schedd/Scheduler1"
    public static let interface = "org.schedd.Scheduler1"
    /// The standard D-Bus error for a caller that may not make a call (the bus policy or the daemon's
    /// caller check).
    public static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
}

/// The D-Bus error names of org.schedd.Scheduler1: every failed call answers one of these with the
/// message the CLI prints. The daemon maps each of its error kinds to one explicitly
/// (ScheddService's `ServiceFailure`); clients map each back (ScheddClientCore's `ScheddError`).
public enum SchedulerErrorName: String, Sendable, CaseIterable {
    /// A push broke a rule of CONTRACT §1 (the message names the member and the rule). CLI exit 1.
    case invalidPush = "org.schedd.Scheduler1.Error.InvalidPush"
    /// An argument other than a push is malformed, unknown or over its cap. CLI exit 1.
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
    /// The caller may not make this call (the policy, or an identity refusal): the standard D-Bus name. CLI exit 3.
    case accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
}
