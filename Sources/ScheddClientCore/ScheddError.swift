import ScheddBus

/// A failed call to schedd: the D-Bus error it mirrors (`code`), the daemon's one-line message (the
/// line `schedd` prints: `bk.local.title: required`) and the D-Bus error name. The one mapping from
/// D-Bus errors to client errors, for ScheddClient, ScheddTestKit and the CLI (whose exit codes
/// follow from `code`).
///
/// `code` is opaque and extensible (new daemon errors become new codes without breaking a `switch`
/// that has a `default`): compare with the static members, `error.code == .invalidPush`.
public struct ScheddError: Error, Sendable, CustomStringConvertible, Equatable {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String { case invalidPush, invalidArgument, notFound, notFakeClock, storage, usage, quotaExceeded,
                                         accessDenied, unreachable, timeout, protocolError, runawayTimers, other }
        private let kind: Kind
        private init(kind: Kind) { self.kind = kind }

        /// `org.schedd.Scheduler1.Error.InvalidPush`: a push broke a rule; nothing was stored.
        public static let invalidPush = Code(kind: .invalidPush)
        /// `…Error.InvalidArgument`: a zone, time, event name or data is malformed or unknown.
        public static let invalidArgument = Code(kind: .invalidArgument)
        /// `…Error.NotFound`.
        public static let notFound = Code(kind: .notFound)
        /// `…Error.NotFakeClock`: the clock was moved on a daemon running the real clock.
        public static let notFakeClock = Code(kind: .notFakeClock)
        /// `…Error.Storage`: the database failed; nothing was changed.
        public static let storage = Code(kind: .storage)
        /// `…Error.Usage`, or a method this daemon does not have.
        public static let usage = Code(kind: .usage)
        /// `…Error.QuotaExceeded`: the push would take its app over the pending quota; nothing was stored.
        public static let quotaExceeded = Code(kind: .quotaExceeded)
        /// `org.freedesktop.DBus.Error.AccessDenied`: the bus policy or the daemon's caller check refused.
        public static let accessDenied = Code(kind: .accessDenied)
        /// No schedd on that bus (or no bus).
        public static let unreachable = Code(kind: .unreachable)
        /// The daemon did not answer within the call's timeout.
        public static let timeout = Code(kind: .timeout)
        /// The reply did not have the documented shape.
        public static let protocolError = Code(kind: .protocolError)
        /// `runUntilIdle` reached its limit with schedules still pending.
        public static let runawayTimers = Code(kind: .runawayTimers)
        /// Any other D-Bus error (see `dbusName`).
        public static let other = Code(kind: .other)

        /// The code of a schedd error name.
        public init(name: SchedulerErrorName) {
            switch name {
            case .invalidPush: self = .invalidPush
            case .invalidArgument: self = .invalidArgument
            case .notFound: self = .notFound
            case .notFakeClock: self = .notFakeClock
            case .storage: self = .storage
            case .usage: self = .usage
            case .quotaExceeded: self = .quotaExceeded
            case .accessDenied: self = .accessDenied
            }
        }

        public var description: String { kind.rawValue }
    }

    public var code: Code
    public var message: String
    /// The D-Bus error name, when the failure was a D-Bus error reply.
    public var dbusName: String?

    /// The member, rule and position the daemon named, as data (nil when it named none): build messages
    /// from these, never by taking `message` apart.
    public var detail: SchedulerErrorDetail?
    public init(_ code: Code, _ message: String, dbusName: String? = nil, detail: SchedulerErrorDetail? = nil) {
        self.code = code; self.message = message; self.dbusName = dbusName; self.detail = detail
    }

    public var description: String { message }

    /// Maps a bus failure to the error it mirrors. The daemon's own errors keep its message as it is
    /// (the CLI prints it); the others say what failed.
    package init(_ error: BusError) {
        let name = error.name
        let message = error.message ?? error.description
        switch name {
        case let name? where SchedulerErrorName(rawValue: name) != nil:
            self.init(Code(name: SchedulerErrorName(rawValue: name)!), message, dbusName: name,
                      detail: SchedulerErrorDetail(fields: error.details))
        case "org.freedesktop.DBus.Error.UnknownMethod"?: self.init(.usage, message, dbusName: name)
        case "org.freedesktop.DBus.Error.ServiceUnknown"?, "org.freedesktop.DBus.Error.NameHasNoOwner"?:
            self.init(.unreachable, "no schedd daemon answers: \(message)", dbusName: name)
        case _ where error.isTimeout: self.init(.timeout, "schedd did not answer in time: \(message)", dbusName: name)
        case _ where error.isDisconnected: self.init(.unreachable, "the bus connection is gone: \(message)", dbusName: name)
        case let other?: self.init(.other, "\(other): \(message)", dbusName: other)
        case nil: self.init(.unreachable, error.description)
        }
    }
}
