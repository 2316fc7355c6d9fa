import Scheduler

/// The D-Bus error names of org.schedd.Scheduler1 (README, "D-Bus API"): every failed call answers one
/// of these with the message the CLI prints. The mapping of every error kind to a name is explicit
/// (`ServiceFailure.init(_:EngineError)` and the others below); nothing falls back to `storage`.
public enum ServiceErrorName: String, Sendable, CaseIterable {
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
    /// The caller may not make this call (the policy, or an identity refusal): the standard D-Bus name.
    case accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
}

/// A failed method call: the D-Bus error name and the message the CLI prints, and the engine or store
/// failure behind it when there is one (for the storage health's errno).
public struct ServiceFailure: Error, Sendable, CustomStringConvertible {
    public var name: ServiceErrorName
    public var message: String
    /// The store failure behind a `.storage` failure.
    public var storeCause: StoreError?
    public init(_ name: ServiceErrorName, _ message: String, storeCause: StoreError? = nil) {
        self.name = name; self.message = message; self.storeCause = storeCause
    }
    public var description: String { message }

    /// Each engine error kind to its D-Bus name (exhaustive: a new kind does not compile until mapped).
    public init(_ error: EngineError) {
        let name: ServiceErrorName = switch error.kind {
        case .storage: .storage
        case .invalidArgument: .invalidArgument
        case .notFound: .notFound
        case .quotaExceeded: .quotaExceeded
        }
        self.init(name, error.message, storeCause: error.cause)
    }

    /// A value that breaks its method's rule: InvalidArgument.
    public init(_ rejection: ArgumentRejection) { self.init(.invalidArgument, rejection.message) }

    /// Arguments that do not fit the method's signature (Usage) or exceed a cap (InvalidArgument).
    public init(_ error: CallArgumentError) {
        let name: ServiceErrorName = switch error.kind {
        case .shape: .usage
        case .overCap: .invalidArgument
        case .invalidPush: .invalidPush
        }
        self.init(name, error.message)
    }

    /// org.freedesktop.DBus.Error.AccessDenied with `message`.
    public init(accessDenied message: String) { self.init(.accessDenied, message) }

    /// Runs `body`, turning an argument it rejects into `InvalidArgument` with the rejection's message.
    public static func rejecting<T>(_ body: () throws(ArgumentRejection) -> T) throws(ServiceFailure) -> T {
        do { return try body() } catch { throw ServiceFailure(error) }
    }
}
