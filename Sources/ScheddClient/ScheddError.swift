import ScheddBus

/// A failed call to schedd: the D-Bus error it mirrors (`code`), the daemon's one-line message (the
/// line `schedd` prints: `bk.local.title: required`) and the D-Bus error name.
///
/// `code` is opaque and extensible (new daemon errors become new codes without breaking a `switch`
/// that has a `default`): compare with the static members, `error.code == .invalidPush`.
public struct ScheddError: Error, Sendable, CustomStringConvertible, Equatable {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String { case invalidPush, invalidArgument, notFound, notFakeClock, storage, usage,
                                         accessDenied, unreachable, timeout, protocolError, runawayTimers, other }
        private let kind: Kind
        private init(_ kind: Kind) { self.kind = kind }

        /// `org.schedd.Scheduler1.Error.InvalidPush`: a push broke a rule; nothing was stored.
        public static let invalidPush = Code(.invalidPush)
        /// `…Error.InvalidArgument`: a zone, time, event name or data is malformed or unknown.
        public static let invalidArgument = Code(.invalidArgument)
        /// `…Error.NotFound`.
        public static let notFound = Code(.notFound)
        /// `…Error.NotFakeClock`: the clock was moved on a daemon running the real clock.
        public static let notFakeClock = Code(.notFakeClock)
        /// `…Error.Storage`: the database failed; nothing was changed.
        public static let storage = Code(.storage)
        /// `…Error.Usage`, or a method this daemon does not have.
        public static let usage = Code(.usage)
        /// `org.freedesktop.DBus.Error.AccessDenied`: the bus policy or the daemon's caller check refused.
        public static let accessDenied = Code(.accessDenied)
        /// No schedd on that bus (or no bus).
        public static let unreachable = Code(.unreachable)
        /// The daemon did not answer within the call's timeout.
        public static let timeout = Code(.timeout)
        /// The reply did not have the documented shape.
        public static let protocolError = Code(.protocolError)
        /// `runUntilIdle` reached its limit with schedules still pending.
        public static let runawayTimers = Code(.runawayTimers)
        /// Any other D-Bus error (see `dbusName`).
        public static let other = Code(.other)

        public var description: String { kind.rawValue }
    }

    public var code: Code
    public var message: String
    /// The D-Bus error name, when the failure was a D-Bus error reply.
    public var dbusName: String?

    public init(_ code: Code, _ message: String, dbusName: String? = nil) {
        self.code = code; self.message = message; self.dbusName = dbusName
    }

    public var description: String { message }

    static let prefix = "org.schedd.Scheduler1.Error."

    /// Maps a bus failure to the error it mirrors.
    init(_ error: BusError) {
        let name = error.name
        let message = error.message ?? error.description
        switch name {
        case (Self.prefix + "InvalidPush")?: self.init(.invalidPush, message, dbusName: name)
        case (Self.prefix + "InvalidArgument")?: self.init(.invalidArgument, message, dbusName: name)
        case (Self.prefix + "NotFound")?: self.init(.notFound, message, dbusName: name)
        case (Self.prefix + "NotFakeClock")?: self.init(.notFakeClock, message, dbusName: name)
        case (Self.prefix + "Storage")?: self.init(.storage, message, dbusName: name)
        case (Self.prefix + "Usage")?, "org.freedesktop.DBus.Error.UnknownMethod"?:
            self.init(.usage, message, dbusName: name)
        case "org.freedesktop.DBus.Error.AccessDenied"?: self.init(.accessDenied, message, dbusName: name)
        case "org.freedesktop.DBus.Error.ServiceUnknown"?, "org.freedesktop.DBus.Error.NameHasNoOwner"?:
            self.init(.unreachable, "no schedd daemon answers: \(message)", dbusName: name)
        case _ where error.isTimeout: self.init(.timeout, "schedd did not answer in time: \(message)", dbusName: name)
        case _ where error.isDisconnected: self.init(.unreachable, "the bus connection is gone: \(message)", dbusName: name)
        case let other?: self.init(.other, "\(other): \(message)", dbusName: other)
        case nil: self.init(.unreachable, error.description)
        }
    }
}
