import ScheddService

/// schedd's D-Bus names (README, "D-Bus API"). The interface is versioned: an incompatible change
/// becomes `org.schedd.Scheduler2`, served next to this one.
enum BusNames {
    /// The well-known name the daemon owns.
    static let service = "org.schedd.Scheduler1"
    static let objectPath = "/org/schedd/Scheduler1"
    static let interface = "org.schedd.Scheduler1"
}

/// The D-Bus error names the daemon replies with (ScheddService's `ServiceErrorName`).
typealias BusErrorName = ServiceErrorName

extension ServiceErrorName {
    /// The CLI exit code for this error.
    var exitCode: ExitCode {
        switch self {
        case .invalidPush, .invalidArgument, .notFound, .notFakeClock, .quotaExceeded: .rejected
        case .storage, .accessDenied: .failure
        case .usage: .usage
        }
    }
}
