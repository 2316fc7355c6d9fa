import Glibc
import ScheddSystem

/// A failed bus, event-loop or system call: the D-Bus error name and message when a peer or the bus
/// driver sent one, else the errno of the local failure, with what was being attempted.
///
/// `description` reads "Notify: org.freedesktop.DBus.Error.ServiceUnknown: The name … was not provided"
/// or "connect to the bus at unix:path=/x: No such file or directory".
public struct BusError: Error, Sendable, CustomStringConvertible {
    /// What was attempted ("Notify", "connect to the bus at unix:path=…").
    public var operation: String
    /// The D-Bus error name (`org.freedesktop.DBus.Error.ServiceUnknown`); nil for a local failure.
    public var name: String?
    /// The D-Bus error message, when there was one.
    public var message: String?
    /// The errno (positive); EIO when the peer sent only a D-Bus error.
    public var errno: Int32
    /// The strings after the message in a D-Bus error reply's body (schedd's member, rule, position:
    /// ScheddProtocol's `SchedulerErrorDetail`); empty for other errors.
    public var details: [String] = []

    public init(operation: String, name: String? = nil, message: String? = nil, errno: Int32) {
        self.operation = operation; self.name = name; self.message = message; self.errno = abs(errno)
    }

    /// A failed Linux call (ScheddSystem), with its errno.
    public init(_ failure: SystemCallError) {
        self.init(operation: failure.operation, errno: failure.errno.rawValue)
    }

    /// True when nobody owns the destination name (and nothing could be activated).
    public var isNoOwner: Bool {
        name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
    }

    /// True when the call timed out (the peer is hung or too slow): sd-bus's `NoReply` or ETIMEDOUT.
    public var isTimeout: Bool {
        errno == ETIMEDOUT || name == "org.freedesktop.DBus.Error.NoReply" || name == "org.freedesktop.DBus.Error.Timeout"
    }

    /// True when the connection itself is gone (the bus daemon hung up, or the connection was closed).
    public var isDisconnected: Bool {
        name == "org.freedesktop.DBus.Error.Disconnected" || errno == ECONNRESET || errno == ENOTCONN
            || errno == EPIPE || errno == ESHUTDOWN
    }

    /// The peer's message, or the errno text for a local failure (without the operation).
    public var reason: String { message ?? name ?? String(cString: strerror(errno)) }

    /// The peer's message when a peer sent an error, else the whole `description` (a local failure).
    public var detail: String { name != nil ? (message ?? name!) : description }

    public var description: String {
        if let name { return "\(operation): \(name): \(message ?? "")" }
        if let message { return "\(operation): \(message)" }
        return "\(operation): \(String(cString: strerror(errno)))"
    }
}

/// Throws a `BusError` for a negative return value of a C call; returns the value otherwise.
@discardableResult
func check(_ result: Int32, _ operation: @autoclosure () -> String) throws(BusError) -> Int32 {
    if result < 0 { throw BusError(operation: operation(), errno: -result) }
    return result
}
