/// schedd's D-Bus names (README, "D-Bus API"). The interface is versioned: an incompatible change
/// becomes `org.schedd.Scheduler2`, served next to this one.
enum BusNames {
    /// The well-known name the daemon owns.
    static let service = "org.schedd.Scheduler1"
    static let objectPath = "/org/schedd/Scheduler1"
    static let interface = "org.schedd.Scheduler1"
}

/// The D-Bus error names the daemon replies with; each carries the same message the CLI prints.
enum BusErrorName: String, Sendable, CaseIterable {
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

    /// The CLI exit code for this error.
    var exitCode: ExitCode {
        switch self {
        case .invalidPush, .invalidArgument, .notFound, .notFakeClock, .quotaExceeded: .rejected
        case .storage: .failure
        case .usage: .usage
        }
    }
}
