import CSystemd
import Glibc

// Every sd_bus_* call of the desktop notifier lives in this file (STYLE §2: one shim, one prefix).
// Only the non-variadic sd-bus API is used (RECIPES: variadic C functions do not import).

/// A failed D-Bus call or connection step: the D-Bus error name and message when the peer or the bus
/// sent one, else the negative errno sd-bus returned.
public struct NotificationsBusError: Error, Sendable, CustomStringConvertible {
    /// What was attempted ("Notify", "connect to unix:path=…").
    public var operation: String
    /// e.g. `org.freedesktop.DBus.Error.ServiceUnknown`; nil for a local failure.
    public var name: String?
    public var message: String?
    /// The errno (positive) sd-bus reported.
    public var errno: Int32

    /// True when nobody owns org.freedesktop.Notifications (and nothing could be activated).
    public var isNoServer: Bool {
        name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
    }
    /// True when the call timed out (the server is hung or too slow to start).
    public var isTimeout: Bool {
        errno == ETIMEDOUT || name == "org.freedesktop.DBus.Error.NoReply" || name == "org.freedesktop.DBus.Error.Timeout"
    }

    public var description: String {
        if let name { return "\(operation): \(name): \(message ?? "")" }
        return "\(operation): \(String(cString: strerror(errno)))"
    }
}

/// A signal the notifier listens to, decoded.
enum NotificationsSignal {
    /// `org.freedesktop.DBus.NameOwnerChanged` for org.freedesktop.Notifications (empty = none).
    case nameOwnerChanged(oldOwner: String, newOwner: String)
    /// `ActionInvoked(u id, s action_key)` from `sender`.
    case actionInvoked(sender: String, id: UInt32, key: String)
    /// `NotificationClosed(u id, u reason)` from `sender`.
    case notificationClosed(sender: String, id: UInt32, reason: UInt32)
    /// sd-bus's local `org.freedesktop.DBus.Local.Disconnected`: the bus daemon hung up.
    case disconnected
}

/// Receives decoded signals; held by the connection so the C userdata pointer stays valid.
final class NotificationsSignalSink {
    let deliver: (NotificationsSignal) -> Void
    init(_ deliver: @escaping (NotificationsSignal) -> Void) { self.deliver = deliver }
}

/// One sd-bus client connection used only for org.freedesktop.Notifications.
///
/// Not thread-safe: owned by the thread that runs the daemon's event loop (or a test).
final class NotificationsBus {
    static let serverName = "org.freedesktop.Notifications"
    static let objectPath = "/org/freedesktop/Notifications"
    static let interface = "org.freedesktop.Notifications"

    private var bus: OpaquePointer?
    private var slots: [OpaquePointer] = []
    private let sink: NotificationsSignalSink
    private let callTimeoutMicroseconds: UInt64

    /// Connects to `address` (a D-Bus address such as `unix:path=/run/user/1000/bus`), or to the user's
    /// session bus (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`) when nil, and subscribes to
    /// the three signals. Blocks for at most the connection handshake and two AddMatch round trips.
    init(address: String?, callTimeoutMicroseconds: UInt64, sink: NotificationsSignalSink)
        throws(NotificationsBusError) {
        self.sink = sink
        self.callTimeoutMicroseconds = callTimeoutMicroseconds
        let target = address ?? "the session bus"
        var newBus: OpaquePointer?
        if let address {
            var r = sd_bus_new(&newBus)
            if r >= 0 { r = address.withCString { sd_bus_set_address(newBus, $0) } }
            if r >= 0 { r = sd_bus_set_bus_client(newBus, 1) }
            if r >= 0 { r = sd_bus_start(newBus) }
            if r < 0 {
                sd_bus_unref(newBus)
                throw NotificationsBusError(operation: "connect to \(target)", errno: -r)
            }
        } else {
            let r = sd_bus_open_user(&newBus)
            if r < 0 { throw NotificationsBusError(operation: "connect to \(target)", errno: -r) }
        }
        _ = "schedd-notifier".withCString { sd_bus_set_description(newBus, $0) }
        // A lost connection must never stop the daemon's event loop; the notifier reconnects instead.
        sd_bus_set_exit_on_disconnect(newBus, 0)
        sd_bus_set_method_call_timeout(newBus, callTimeoutMicroseconds)
        bus = newBus
        do {
            try addMatch("type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.serverName)'")
            try addMatch("type='signal',path='\(Self.objectPath)',interface='\(Self.interface)'")
            try addDisconnectFilter()
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Drops the subscriptions and the connection (flushing queued messages first).
    func close() {
        for slot in slots { sd_bus_slot_unref(slot) }
        slots.removeAll()
        if let bus {
            sd_bus_detach_event(bus)
            sd_bus_flush_close_unref(bus)
        }
        bus = nil
    }

    /// False once the bus daemon hung up (or `close()` was called).
    var isOpen: Bool { bus.map { sd_bus_is_open($0) > 0 } ?? false }

    /// The unique name of the current owner of org.freedesktop.Notifications, nil when there is none.
    func serverOwner() -> String? {
        guard let m = newCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                              interface: "org.freedesktop.DBus", member: "GetNameOwner") else { return nil }
        defer { sd_bus_message_unref(m) }
        guard appendString(m, Self.serverName), let reply = try? call(m, operation: "GetNameOwner") else { return nil }
        defer { sd_bus_message_unref(reply) }
        return readString(reply)
    }

    /// `GetCapabilities() → as`.
    func getCapabilities() throws(NotificationsBusError) -> [String] {
        guard let m = newCall(member: "GetCapabilities") else { throw localError("GetCapabilities", ENOMEM) }
        defer { sd_bus_message_unref(m) }
        let reply = try call(m, operation: "GetCapabilities")
        defer { sd_bus_message_unref(reply) }
        var caps: [String] = []
        guard sd_bus_message_enter_container(reply, CChar(UInt8(ascii: "a")), "s") >= 0 else {
            throw localError("GetCapabilities reply", EBADMSG)
        }
        while let cap = readString(reply) { caps.append(cap) }
        return caps
    }

    /// `Notify(susssasa{sv}i) → u`; returns the server's id and the reply's sender (the server's unique name).
    func notify(_ request: NotifyRequest) throws(NotificationsBusError) -> (id: UInt32, sender: String?) {
        guard let m = newCall(member: "Notify") else { throw localError("Notify", ENOMEM) }
        defer { sd_bus_message_unref(m) }
        var ok = appendString(m, request.appName) && appendUInt32(m, request.replacesId)
            && appendString(m, request.appIcon) && appendString(m, request.summary) && appendString(m, request.body)
        ok = ok && sd_bus_message_open_container(m, CChar(UInt8(ascii: "a")), "s") >= 0
        for item in request.actions where ok { ok = appendString(m, item) }
        ok = ok && sd_bus_message_close_container(m) >= 0
        ok = ok && sd_bus_message_open_container(m, CChar(UInt8(ascii: "a")), "{sv}") >= 0
        for hint in request.hints where ok { ok = appendHint(m, hint) }
        ok = ok && sd_bus_message_close_container(m) >= 0
        var timeout = request.expireTimeout
        ok = ok && sd_bus_message_append_basic(m, CChar(UInt8(ascii: "i")), &timeout) >= 0
        guard ok else { throw localError("Notify arguments", EINVAL) }
        let reply = try call(m, operation: "Notify")
        defer { sd_bus_message_unref(reply) }
        var id: UInt32 = 0
        guard sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "u")), &id) > 0 else {
            throw localError("Notify reply", EBADMSG)
        }
        return (id, sd_bus_message_get_sender(reply).map { String(cString: $0) })
    }

    /// `CloseNotification(u id)`.
    func closeNotification(_ id: UInt32) throws(NotificationsBusError) {
        guard let m = newCall(member: "CloseNotification") else { throw localError("CloseNotification", ENOMEM) }
        defer { sd_bus_message_unref(m) }
        guard appendUInt32(m, id) else { throw localError("CloseNotification arguments", EINVAL) }
        let reply = try call(m, operation: "CloseNotification")
        sd_bus_message_unref(reply)
    }

    /// Lets sd-event drive this connection: its fd and timeouts join `event`'s loop.
    func attach(to event: OpaquePointer) throws(NotificationsBusError) {
        let r = sd_bus_attach_event(bus, event, 0)
        if r < 0 { throw localError("attach to event loop", -r) }
    }

    func detach() { if let bus { sd_bus_detach_event(bus) } }

    /// Dispatches every queued message, then waits up to `timeoutMicroseconds` for more and dispatches
    /// those. For use without sd-event (tests, one-shot CLI). Returns false once the connection is closed.
    @discardableResult
    func process(waitingUpTo timeoutMicroseconds: UInt64) -> Bool {
        guard let bus else { return false }
        while true {
            let r = sd_bus_process(bus, nil)
            if r < 0 { return false }
            if r == 0 { break }
        }
        if sd_bus_wait(bus, timeoutMicroseconds) < 0 { return false }
        while true {
            let r = sd_bus_process(bus, nil)
            if r < 0 { return false }
            if r == 0 { break }
        }
        return true
    }

    // MARK: - Private

    private func addMatch(_ rule: String) throws(NotificationsBusError) {
        var slot: OpaquePointer?
        let userdata = Unmanaged.passUnretained(sink).toOpaque()
        let r = rule.withCString { sd_bus_add_match(bus, &slot, $0, notificationsSignalTrampoline, userdata) }
        if r < 0 { throw localError("AddMatch", -r) }
        if let slot { slots.append(slot) }
    }

    /// sd-bus synthesizes `Disconnected` locally; a filter (not a match) sees it without an AddMatch.
    private func addDisconnectFilter() throws(NotificationsBusError) {
        var slot: OpaquePointer?
        let userdata = Unmanaged.passUnretained(sink).toOpaque()
        let r = sd_bus_add_filter(bus, &slot, notificationsDisconnectFilter, userdata)
        if r < 0 { throw localError("add filter", -r) }
        if let slot { slots.append(slot) }
    }

    private func newCall(destination: String = NotificationsBus.serverName, path: String = NotificationsBus.objectPath,
                         interface: String = NotificationsBus.interface, member: String) -> OpaquePointer? {
        var m: OpaquePointer?
        let r = sd_bus_message_new_method_call(bus, &m, destination, path, interface, member)
        return r >= 0 ? m : nil
    }

    /// Sends `m` and waits at most the call timeout for the reply (the caller unrefs the reply).
    private func call(_ m: OpaquePointer, operation: String) throws(NotificationsBusError) -> OpaquePointer {
        var error = sd_bus_error(name: nil, message: nil, _need_free: 0)
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let r = sd_bus_call(bus, m, callTimeoutMicroseconds, &error, &reply)
        guard r >= 0, let reply else {
            throw NotificationsBusError(operation: operation, name: error.name.map { String(cString: $0) },
                                        message: error.message.map { String(cString: $0) }, errno: r < 0 ? -r : EIO)
        }
        return reply
    }

    private func localError(_ operation: String, _ code: Int32) -> NotificationsBusError {
        NotificationsBusError(operation: operation, errno: code)
    }
}

// MARK: - Message helpers (free functions: they need no connection state)

private func appendString(_ m: OpaquePointer, _ s: String) -> Bool {
    s.withCString { sd_bus_message_append_basic(m, CChar(UInt8(ascii: "s")), $0) } >= 0
}

private func appendUInt32(_ m: OpaquePointer, _ value: UInt32) -> Bool {
    var v = value
    return sd_bus_message_append_basic(m, CChar(UInt8(ascii: "u")), &v) >= 0
}

private func appendHint(_ m: OpaquePointer, _ hint: NotifyRequest.Hint) -> Bool {
    guard sd_bus_message_open_container(m, CChar(UInt8(ascii: "e")), "sv") >= 0, appendString(m, hint.key) else {
        return false
    }
    switch hint.value {
    case .string(let s):
        guard sd_bus_message_open_container(m, CChar(UInt8(ascii: "v")), "s") >= 0, appendString(m, s) else {
            return false
        }
    case .byte(let b):
        var v = b
        guard sd_bus_message_open_container(m, CChar(UInt8(ascii: "v")), "y") >= 0,
              sd_bus_message_append_basic(m, CChar(UInt8(ascii: "y")), &v) >= 0 else { return false }
    }
    return sd_bus_message_close_container(m) >= 0 && sd_bus_message_close_container(m) >= 0
}

/// Reads one `s`; nil at the end of the current container or on a type mismatch.
private func readString(_ m: OpaquePointer) -> String? {
    var p: UnsafePointer<CChar>?
    guard sd_bus_message_read_basic(m, CChar(UInt8(ascii: "s")), &p) > 0, let p else { return nil }
    return String(cString: p)
}

private func readUInt32(_ m: OpaquePointer) -> UInt32? {
    var v: UInt32 = 0
    return sd_bus_message_read_basic(m, CChar(UInt8(ascii: "u")), &v) > 0 ? v : nil
}

/// sd-bus match callback: decodes the three signals and hands them to the sink. Malformed signals are
/// ignored (returning 0 lets other matches see the message too).
private func notificationsSignalTrampoline(_ m: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?,
                                           _ error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
    guard let m, let userdata, let memberPointer = sd_bus_message_get_member(m) else { return 0 }
    let sink = Unmanaged<NotificationsSignalSink>.fromOpaque(userdata).takeUnretainedValue()
    let sender = sd_bus_message_get_sender(m).map { String(cString: $0) } ?? ""
    switch String(cString: memberPointer) {
    case "NameOwnerChanged":
        guard readString(m) != nil, let old = readString(m), let new = readString(m) else { return 0 }
        sink.deliver(.nameOwnerChanged(oldOwner: old, newOwner: new))
    case "ActionInvoked":
        guard let id = readUInt32(m), let key = readString(m) else { return 0 }
        sink.deliver(.actionInvoked(sender: sender, id: id, key: key))
    case "NotificationClosed":
        guard let id = readUInt32(m), let reason = readUInt32(m) else { return 0 }
        sink.deliver(.notificationClosed(sender: sender, id: id, reason: reason))
    default:
        break
    }
    return 0
}

private func notificationsDisconnectFilter(_ m: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?,
                                           _ error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
    guard let m, let userdata,
          sd_bus_message_is_signal(m, "org.freedesktop.DBus.Local", "Disconnected") > 0 else { return 0 }
    Unmanaged<NotificationsSignalSink>.fromOpaque(userdata).takeUnretainedValue().deliver(.disconnected)
    return 0
}
