/// Why a connector operation failed: an app's registration call, or an argument of a distributor's
/// call. `message` names the argument and the rule (it becomes the D-Bus error message).
public struct PushConnectorError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// No distributor to register with (none on the bus, or the override's is missing).
        case noDistributor = "org.schedd.UnifiedPush1.Error.NoDistributor"
        /// The distributor answered REGISTRATION_FAILED, or its Register call failed.
        case registrationFailed = "org.schedd.UnifiedPush1.Error.RegistrationFailed"
        /// An argument breaks a rule of the spec (token length, message size, types).
        case invalidArgument = "org.schedd.UnifiedPush1.Error.InvalidArgument"
        /// The app has no registration.
        case notRegistered = "org.schedd.UnifiedPush1.Error.NotRegistered"
        /// The database failed; nothing was changed.
        case storage = "org.schedd.UnifiedPush1.Error.Storage"
        /// The app is at its quota of pending schedules; nothing was changed.
        case quotaExceeded = "org.schedd.UnifiedPush1.Error.QuotaExceeded"
        /// The caller may not make this call: a connector call from a peer that is not the
        /// registration's distributor (org.freedesktop.DBus.Error.AccessDenied).
        case accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    }

    public let kind: Kind
    public let message: String
    public init(_ kind: Kind, _ message: String) { self.kind = kind; self.message = message }
    public var description: String { message }
    /// The D-Bus error name.
    public var busName: String { kind.rawValue }
}
