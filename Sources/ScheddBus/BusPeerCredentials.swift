import Glibc
import ScheddSystem

/// What the bus driver says of a connection (`org.freedesktop.DBus.GetConnectionCredentials`), asked
/// asynchronously: the uid and pid the kernel reported when the peer connected (SO_PEERCRED), and the
/// peer's pidfd when the bus offers one (`ProcessFD`: dbus-broker, dbus-daemon ≥ 1.15.x with a kernel
/// that has SO_PEERPIDFD; dbus-daemon 1.14 does not). The `ProcessFD` descriptor is the bus's pin of
/// the process that connected: it cannot refer to a process that took the PID over later.
public struct BusPeerCredentials: Sendable {
    /// `UnixUserID`.
    public var uid: uid_t?
    /// `ProcessID`, in the bus daemon's PID namespace.
    public var pid: pid_t?
    /// A duplicate of `ProcessFD` (close-on-exec), owned by whoever receives this value: close it.
    public var pidfd: Int32?

    public init(uid: uid_t?, pid: pid_t?, pidfd: Int32?) { self.uid = uid; self.pid = pid; self.pidfd = pidfd }
}

extension BusConnection {
    /// Sends `GetConnectionCredentials(name)` to the bus driver and returns at once; `completion` runs
    /// once in a later dispatch with the answer (or the error: the name has left the bus, a timeout).
    /// Never blocks the loop. Keys other than UnixUserID, ProcessID and ProcessFD are skipped.
    public func peerCredentials(of name: String, timeoutMicroseconds: UInt64 = 5_000_000,
                                completion: @escaping (Result<BusPeerCredentials, BusError>) -> Void) throws(BusError) {
        let method = BusMethod(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                               interface: "org.freedesktop.DBus", member: "GetConnectionCredentials")
        try callAsync(method, timeoutMicroseconds: timeoutMicroseconds, { m throws(BusError) in try m.append(name) }) {
            result in
            switch result {
            case .failure(let error): completion(.failure(error))
            case .success(let reply):
                var creds = BusPeerCredentials(uid: nil, pid: nil, pidfd: nil)
                do throws(BusError) {
                    try Self.read(reply, into: &creds)
                    completion(.success(creds))
                } catch {
                    if let fd = creds.pidfd { FileDescriptor(rawValue: fd).close() }
                    completion(.failure(error))
                }
            }
        }
    }

    private static func read(_ reply: BusMessage, into creds: inout BusPeerCredentials) throws(BusError) {
        guard try reply.enterContainer("a", "{sv}") else {
            throw BusError(operation: "read GetConnectionCredentials", errno: ENXIO)
        }
        while try reply.enterContainer("e", "sv") {
            let key = try reply.readString()
            let signature = try reply.peekType()?.contents ?? ""
            switch (key, signature) {
            case ("UnixUserID", "u"):
                try reply.enterVariant("u")
                creds.uid = try reply.readUInt32()
                try reply.exitContainer()
            case ("ProcessID", "u"):
                try reply.enterVariant("u")
                creds.pid = pid_t(bitPattern: try reply.readUInt32())
                try reply.exitContainer()
            case ("ProcessFD", "h"):
                try reply.enterVariant("h")
                creds.pidfd = try reply.readFileDescriptor()
                try reply.exitContainer()
            default:
                try reply.skipArgument()
            }
            try reply.exitContainer()
        }
        try reply.exitContainer()
    }
}
