import ScheddProtocol
import Scheduler

/// Why a connector operation failed: an app's registration call, or an argument of a distributor's
/// call. `message` names the argument and the rule (it becomes the D-Bus error message).
public struct PushConnectorError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The error's D-Bus name: ScheddProtocol's `UnifiedPushErrorName`, the one set.
    public typealias Kind = UnifiedPushErrorName

    public let kind: Kind
    public let message: String
    /// True when the failure was already logged where it happened: a store write's that the daemon's
    /// storage health was told of (`fromStore(writing:reportingTo:_:)`), or a message's that `MessageIntake`
    /// logged with the message's label. Whoever catches it must not log it again.
    var alreadyLogged = false
    public init(_ kind: Kind, _ message: String) { self.kind = kind; self.message = message }
    /// Equal when the kind and message are (what a caller sees); whether it was logged is not compared.
    public static func == (a: PushConnectorError, b: PushConnectorError) -> Bool { a.kind == b.kind && a.message == b.message }
    public var description: String { message }
    /// The D-Bus error name.
    public var busName: String { kind.rawValue }
}

/// Runs a store call, turning its failure into a `.storage` error (the D-Bus error apps and distributors see).
/// For reads; a write goes through `fromStore(writing:reportingTo:_:)`, which also tells the storage health.
func fromStore<T>(_ body: () throws(StoreError) -> T) throws(PushConnectorError) -> T {
    do { return try body() } catch { throw PushConnectorError(.storage, error.message) }
}

/// Runs a store write as `fromStore` does, reporting it to the daemon's storage health first
/// (`StorageHooks.reporting`): the caller gets the same `.storage` error as from `fromStore` (the same
/// D-Bus error name and message), marked `alreadyLogged`, and the storage health logs the
/// failure (so the caller does not log it again) and sets STATUS=/ERRNO=.
/// `what` names the write and the app it is for.
func fromStore<T>(writing what: @autoclosure () -> String, reportingTo storage: PushConnector.StorageHooks,
                  _ body: () throws(StoreError) -> T) throws(PushConnectorError) -> T {
    do { return try storage.reporting(what(), body) } catch {
        var failure = PushConnectorError(.storage, error.message)
        failure.alreadyLogged = true
        throw failure
    }
}
