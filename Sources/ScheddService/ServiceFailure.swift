import ScheddProtocol
import Scheduler

/// The D-Bus error names of org.schedd.Scheduler1: ScheddProtocol's `SchedulerErrorName`, the one set
/// the clients map back. The mapping of every error kind to a name is explicit (`ServiceFailure.init(_:EngineError)`
/// and the others below); nothing falls back to `storage`.
public typealias ServiceErrorName = SchedulerErrorName

/// A failed method call: the D-Bus error name and the message the CLI prints, and the engine or store
/// failure behind it when there is one (for the storage health's errno).
public struct ServiceFailure: Error, Sendable, CustomStringConvertible {
    public var name: ServiceErrorName
    public var message: String
    /// The store failure behind a `.storage` failure.
    public var storeCause: StoreError?
    /// The member, rule and position the error is about, as data (sent after the message in the error
    /// reply: `SchedulerErrorDetail`); nil when the error names no member.
    public var detail: SchedulerErrorDetail?
    public init(_ name: ServiceErrorName, _ message: String, storeCause: StoreError? = nil,
                detail: SchedulerErrorDetail? = nil) {
        self.name = name; self.message = message; self.storeCause = storeCause; self.detail = detail
    }

    /// A push that broke a rule: `name` with the push error's message, its member, rule and position kept.
    public init(_ name: ServiceErrorName, _ error: PushError) {
        self.init(name, error.message, detail: SchedulerErrorDetail(member: error.member, rule: error.rule,
                                                                    position: error.syntax?.position,
                                                                    syntax: error.syntax?.reason))
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
        self.init(name, error.message, storeCause: error.cause,
                  detail: error.member.map { SchedulerErrorDetail(member: $0, rule: error.rule ?? "") })
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
