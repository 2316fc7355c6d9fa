import Glibc
import ScheddBus

// The notifier's conversation with org.freedesktop.Notifications (Desktop Notifications spec 1.2),
// over ScheddBus (the one sd-bus seam): encoding the calls, decoding the signals.

/// A signal the notifier listens to, decoded.
enum NotificationsSignal {
    /// `org.freedesktop.DBus.NameOwnerChanged` for org.freedesktop.Notifications (empty = none).
    case nameOwnerChanged(oldOwner: String, newOwner: String)
    /// `ActionInvoked(u id, s action_key)` from `sender`.
    case actionInvoked(sender: String, id: UInt32, key: String)
    /// `NotificationClosed(u id, u reason)` from `sender`.
    case notificationClosed(sender: String, id: UInt32, reason: UInt32)
    /// `ActivationToken(u id, s activation_token)` from `sender` (spec 1.2: sent before `ActionInvoked`).
    case activationToken(sender: String, id: UInt32, token: String)
    /// The bus daemon hung up.
    case disconnected
}

/// One bus connection used only for org.freedesktop.Notifications.
///
/// Not thread-safe: owned by the thread that runs the daemon's event loop (or a test).
final class NotificationsBus {
    static let serverName = "org.freedesktop.Notifications"
    static let objectPath = "/org/freedesktop/Notifications"
    static let interface = "org.freedesktop.Notifications"

    let connection: BusConnection
    private let callTimeoutMicroseconds: UInt64

    /// Connects to `address` (a D-Bus address such as `unix:path=/run/user/1000/bus`), or to the user's
    /// session bus when nil, and subscribes to the server's signals, NameOwnerChanged and the loss of
    /// the bus. Blocks for at most the connection handshake with the bus daemon.
    init(address: String?, callTimeoutMicroseconds: UInt64, deliver: @escaping (NotificationsSignal) -> Void)
        throws(BusError) {
        self.callTimeoutMicroseconds = callTimeoutMicroseconds
        connection = try BusConnection.open(address.map(BusTarget.address) ?? .session, description: "schedd-notifier")
        do throws(BusError) {
            try connection.addMatch("type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.serverName)'") { m in
                guard (try? m.readStringIfAny()) != nil, let old = try? m.readString(), let new = try? m.readString() else {
                    return
                }
                deliver(.nameOwnerChanged(oldOwner: old, newOwner: new))
            }
            try connection.addMatch("type='signal',path='\(Self.objectPath)',interface='\(Self.interface)'") { m in
                let sender = m.sender ?? ""
                switch m.member {
                case "ActionInvoked":
                    guard let id = try? m.readUInt32(), let key = try? m.readString() else { return }
                    deliver(.actionInvoked(sender: sender, id: id, key: key))
                case "NotificationClosed":
                    guard let id = try? m.readUInt32(), let reason = try? m.readUInt32() else { return }
                    deliver(.notificationClosed(sender: sender, id: id, reason: reason))
                case "ActivationToken":
                    guard let id = try? m.readUInt32(), let token = try? m.readString() else { return }
                    deliver(.activationToken(sender: sender, id: id, token: token))
                default:
                    break
                }
            }
            try connection.onDisconnect { deliver(.disconnected) }
        } catch {
            connection.close()
            throw error
        }
    }

    deinit { close() }

    func close() { connection.close() }

    var isOpen: Bool { connection.isOpen }

    private func method(_ member: String) -> BusMethod {
        BusMethod(destination: Self.serverName, path: Self.objectPath, interface: Self.interface, member: member)
    }

    /// The unique name of the current owner of org.freedesktop.Notifications, nil when there is none.
    /// Asks the bus daemon (never the server), waiting at most the call timeout: used at connect time.
    func serverOwner() -> String? {
        let getNameOwner = BusMethod(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                     interface: "org.freedesktop.DBus", member: "GetNameOwner")
        return try? connection.call(getNameOwner, timeoutMicroseconds: callTimeoutMicroseconds,
                                    { m throws(BusError) in try m.append(Self.serverName) },
                                    read: { m throws(BusError) in try m.readString() })
    }

    /// `GetCapabilities() → as`, asynchronously; `completion` runs in a later dispatch (see
    /// `BusConnection.callAsync`).
    func getCapabilities(_ completion: @escaping (Result<[String], BusError>) -> Void) throws(BusError) {
        try connection.callAsync(method("GetCapabilities"), timeoutMicroseconds: callTimeoutMicroseconds,
                                 { _ throws(BusError) in }) { result in
            completion(result.flatMap { reply in Result { () throws(BusError) in try reply.readStrings() } })
        }
    }

    /// `GetServerInformation() → (name, vendor, version, spec_version)`, asynchronously.
    func getServerInformation(_ completion: @escaping (Result<[String], BusError>) -> Void) throws(BusError) {
        try connection.callAsync(method("GetServerInformation"), timeoutMicroseconds: callTimeoutMicroseconds,
                                 autoStart: false, { _ throws(BusError) in }) { result in
            completion(result.flatMap { reply in
                Result { () throws(BusError) in
                    [try reply.readString(), try reply.readString(), try reply.readString(), try reply.readString()]
                }
            })
        }
    }

    /// `Notify(susssasa{sv}i) → u`, asynchronously; `completion` gets the server's id and the reply's
    /// sender (the server's unique name).
    func notify(_ request: NotifyRequest,
                _ completion: @escaping (Result<(id: UInt32, sender: String?), BusError>) -> Void) throws(BusError) {
        try connection.callAsync(method("Notify"), timeoutMicroseconds: callTimeoutMicroseconds,
                                 { m throws(BusError) in try Self.appendNotify(request, to: m) }) { result in
            completion(result.flatMap { reply in
                Result { () throws(BusError) in (try reply.readUInt32(), reply.sender) }
            })
        }
    }

    /// `CloseNotification(u id)`, asynchronously.
    func closeNotification(_ id: UInt32, _ completion: @escaping (BusError?) -> Void) throws(BusError) {
        try connection.callAsync(method("CloseNotification"), timeoutMicroseconds: callTimeoutMicroseconds,
                                 { m throws(BusError) in try m.append(id) }) { result in
            if case .failure(let error) = result { completion(error) } else { completion(nil) }
        }
    }

    /// The arguments of Notify, in the spec's order: `susssasa{sv}i`.
    static func appendNotify(_ request: NotifyRequest, to m: BusMessage) throws(BusError) {
        try m.append(request.appName)
        try m.append(request.replacesId)
        try m.append(request.appIcon)
        try m.append(request.summary)
        try m.append(request.body)
        try m.append(request.actions)
        try m.openContainer("a", "{sv}")
        for hint in request.hints {
            try m.openContainer("e", "sv")
            try m.append(hint.key)
            switch hint.value {
            case .string(let s):
                try m.openContainer("v", "s")
                try m.append(s)
            case .byte(let b):
                try m.openContainer("v", "y")
                try m.append(b)
            case .bool(let b):
                try m.openContainer("v", "b")
                try m.append(b)
            }
            try m.closeContainer()
            try m.closeContainer()
        }
        try m.closeContainer()
        try m.append(request.expireTimeout)
    }

    /// Lets the loop drive this connection.
    func attach(to loop: EventLoop) throws(BusError) { try connection.attach(to: loop) }

    func detach() { connection.detach() }

    /// Without an event loop: see `BusConnection.process`.
    @discardableResult
    func process(waitingUpTo timeoutMicroseconds: UInt64) -> Bool {
        connection.process(waitingUpTo: timeoutMicroseconds)
    }
}
