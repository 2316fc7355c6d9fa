import ScheddProtocol
import Scheduler

/// Why a connector operation failed: an app's registration call, or an argument of a distributor's
/// call. `message` names the argument and the rule (it becomes the D-Bus error message).
public struct PushConnectorError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The error's D-Bus name: ScheddProtocol's `UnifiedPushErrorName`, the one set.
    public typealias Kind = UnifiedPushErrorName

    public let kind: Kind
    public let message: String
    public init(_ kind: Kind, _ message: String) { self.kind = kind; self.message = message }
    public var description: String { message }
    /// The D-Bus error name.
    public var busName: String { kind.rawValue }
}

/// Runs a store call, turning its failure into a `.storage` error (the D-Bus error apps and distributors see).
func fromStore<T>(_ body: () throws(StoreError) -> T) throws(PushConnectorError) -> T {
    do { return try body() } catch { throw PushConnectorError(.storage, error.message) }
}
