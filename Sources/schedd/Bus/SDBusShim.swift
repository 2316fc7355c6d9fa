// Every sd_bus_* call of schedd lives in this file.
import CSchedBus
import CSystemd
import Glibc

/// A failed sd-bus call: a D-Bus error name and message when the peer sent one, else an errno.
struct BusFailure: Error, Sendable, CustomStringConvertible {
    /// The D-Bus error name (`org.freedesktop.DBus.Error.ServiceUnknown`), when there was one.
    var name: String?
    var message: String
    var description: String { name.map { "\($0): \(message)" } ?? message }

    init(name: String?, message: String) { self.name = name; self.message = message }

    /// From a negative errno returned by sd-bus, with what was being done.
    init(errno code: Int32, _ what: String) {
        name = nil
        message = "\(what): \(String(cString: strerror(abs(code))))"
    }

    /// From a filled `sd_bus_error`, freeing it.
    init(error: inout sd_bus_error, code: Int32, _ what: String) {
        if let n = error.name {
            name = String(cString: n)
            message = error.message.map { String(cString: $0) } ?? name!
        } else {
            name = nil
            message = "\(what): \(String(cString: strerror(abs(code))))"
        }
        sd_bus_error_free(&error)
    }
}

/// Throws a `BusFailure` when an sd-bus return value is negative; returns it otherwise.
@discardableResult
private func check(_ result: Int32, _ what: @autoclosure () -> String) throws(BusFailure) -> Int32 {
    if result < 0 { throw BusFailure(errno: result, what()) }
    return result
}

/// One sd-bus connection (`sd_bus *`), closed on deinit. Not thread-safe: used by the thread that
/// opened it (the daemon's loop thread, or the CLI's main thread).
final class BusConnection {
    let handle: OpaquePointer
    let target: BusTarget
    /// Object slots kept alive for as long as the connection (`sd_bus_slot *`).
    private var slots: [OpaquePointer] = []

    private init(handle: OpaquePointer, target: BusTarget) { self.handle = handle; self.target = target }

    deinit {
        for slot in slots { sd_bus_slot_unref(slot) }
        sd_bus_flush_close_unref(handle)
    }

    /// Connects to `target` (`sd_bus_open_user`, `sd_bus_open_system`, or `sd_bus_new` +
    /// `sd_bus_set_address` + `sd_bus_start`).
    static func open(_ target: BusTarget) throws(BusFailure) -> BusConnection {
        var bus: OpaquePointer?
        switch target {
        case .session:
            try check(sd_bus_open_user(&bus), "cannot connect to \(target)")
        case .system:
            try check(sd_bus_open_system(&bus), "cannot connect to \(target)")
        case .address(let address):
            try check(sd_bus_new(&bus), "cannot create a bus connection")
            do {
                try check(sd_bus_set_address(bus, address), "invalid bus address '\(address)'")
                try check(sd_bus_set_bus_client(bus, 1), "cannot configure the bus connection")
                try check(sd_bus_start(bus), "cannot connect to \(target)")
            } catch {
                sd_bus_unref(bus)
                throw error
            }
        }
        return BusConnection(handle: bus!, target: target)
    }

    /// Takes the well-known `name`; fails when another process owns it.
    func requestName(_ name: String) throws(BusFailure) {
        let r = sd_bus_request_name(handle, name, 0)
        if r == -EEXIST || r == -EALREADY {
            throw BusFailure(name: nil, message: "\(name) is already owned on \(target): is another schedd running?")
        }
        try check(r, "cannot own \(name) on \(target)")
    }

    /// Serves `vtable` at `path`/`interface`; `userdata` reaches the method handlers.
    func addObject(path: String, interface: String, vtable: UnsafePointer<sd_bus_vtable>,
                   userdata: UnsafeMutableRawPointer) throws(BusFailure) {
        var slot: OpaquePointer?
        try check(sd_bus_add_object_vtable(handle, &slot, path, interface, vtable, userdata),
                  "cannot serve \(interface) at \(path)")
        if let slot { slots.append(slot) }
    }

    /// Lets the sd-event loop `event` drive this connection.
    func attach(event: OpaquePointer) throws(BusFailure) {
        try check(sd_bus_attach_event(handle, event, 0), "cannot attach the bus to the event loop")
    }

    /// Calls `member` of schedd's interface on the daemon and returns the reply (to be read, then
    /// released with `release`). `timeoutMicroseconds` 0 is sd-bus's default (25 s).
    func callScheduler(_ member: String, timeoutMicroseconds: UInt64 = 0,
                       _ build: (BusMessage) throws(BusFailure) -> Void) throws(BusFailure) -> BusMessage {
        var call: OpaquePointer?
        try check(sd_bus_message_new_method_call(handle, &call, BusNames.service, BusNames.objectPath,
                                                 BusNames.interface, member), "cannot build a \(member) call")
        defer { sd_bus_message_unref(call) }
        try build(BusMessage(call!))
        var error = sd_bus_error()
        var reply: OpaquePointer?
        let r = sd_bus_call(handle, call, timeoutMicroseconds, &error, &reply)
        if r < 0 { throw BusFailure(error: &error, code: r, "\(member) failed") }
        return BusMessage(reply!)
    }

    /// Emits signal `member` of schedd's interface with string arguments.
    func emitSignal(_ member: String, strings: [String]) {
        var message: OpaquePointer?
        guard sd_bus_message_new_signal(handle, &message, BusNames.objectPath, BusNames.interface, member) >= 0 else {
            return
        }
        defer { sd_bus_message_unref(message) }
        let m = BusMessage(message!)
        for s in strings { try? m.append(s) }
        sd_bus_send(handle, message, nil)
    }

    /// Flushes queued outgoing messages (replies, signals) to the socket.
    func flush() { sd_bus_flush(handle) }
}

/// Installs schedd's vtable dispatcher and returns the vtable (C target CSchedBus).
func schedulerVtable(dispatcher: schedbus_dispatcher) -> UnsafePointer<sd_bus_vtable> {
    schedbus_set_dispatcher(dispatcher)
    return schedbus_vtable()
}

/// A borrowed `sd_bus_message *`: read arguments in order, append arguments in order.
struct BusMessage {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    /// The method or signal name.
    var member: String { sd_bus_message_get_member(pointer).map { String(cString: $0) } ?? "" }

    /// Drops one reference (for replies returned by `callScheduler`).
    func release() { sd_bus_message_unref(pointer) }

    func readString() throws(BusFailure) -> String {
        var value: UnsafePointer<CChar>?
        try check(sd_bus_message_read_basic(pointer, CChar(UInt8(ascii: "s")), &value), "cannot read a string argument")
        return String(cString: value!)
    }

    func readUInt32() throws(BusFailure) -> UInt32 {
        var value: UInt32 = 0
        try check(sd_bus_message_read_basic(pointer, CChar(UInt8(ascii: "u")), &value), "cannot read a u argument")
        return value
    }

    func readUInt64() throws(BusFailure) -> UInt64 {
        var value: UInt64 = 0
        try check(sd_bus_message_read_basic(pointer, CChar(UInt8(ascii: "t")), &value), "cannot read a t argument")
        return value
    }

    func readStrings() throws(BusFailure) -> [String] {
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        try check(sd_bus_message_read_strv(pointer, &list), "cannot read a string array")
        guard let list else { return [] }
        var result: [String] = []
        var i = 0
        while let item = list[i] {
            result.append(String(cString: item))
            free(item)
            i += 1
        }
        free(list)
        return result
    }

    func append(_ value: String) throws(BusFailure) {
        let r = value.withCString { sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "s")), $0) }
        try check(r, "cannot append a string")
    }

    func append(_ value: UInt32) throws(BusFailure) {
        var v = value
        try check(sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "u")), &v), "cannot append a u")
    }

    func append(_ value: UInt64) throws(BusFailure) {
        var v = value
        try check(sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "t")), &v), "cannot append a t")
    }

    func append(_ values: [String]) throws(BusFailure) {
        var pointers: [UnsafeMutablePointer<CChar>?] = values.map { strdup($0) }
        pointers.append(nil)
        defer { for p in pointers { free(p) } }
        try check(pointers.withUnsafeMutableBufferPointer { sd_bus_message_append_strv(pointer, $0.baseAddress) },
                  "cannot append a string array")
    }

    /// Sends a method return for this call, built by `build`.
    func reply(_ build: (BusMessage) throws(BusFailure) -> Void) throws(BusFailure) {
        var reply: OpaquePointer?
        try check(sd_bus_message_new_method_return(pointer, &reply), "cannot build a reply")
        defer { sd_bus_message_unref(reply) }
        try build(BusMessage(reply!))
        try check(sd_bus_send(nil, reply, nil), "cannot send a reply")
    }
}

/// Fills the handler's `ret_error` with a schedd error; returns the value the handler must return.
func setBusError(_ error: UnsafeMutablePointer<sd_bus_error>?, _ name: BusErrorName, _ message: String) -> Int32 {
    sd_bus_error_set(error, name.rawValue, message)
}

/// Fills the handler's `ret_error` with `org.freedesktop.DBus.Error.AccessDenied`.
func setAccessDenied(_ error: UnsafeMutablePointer<sd_bus_error>?, _ message: String) -> Int32 {
    sd_bus_error_set(error, accessDeniedErrorName, message)
}

/// The standard D-Bus error for a caller that may not make a call.
let accessDeniedErrorName = "org.freedesktop.DBus.Error.AccessDenied"

extension BusMessage {
    /// The identity of the process that sent this call (`sd_bus_query_sender_creds` with
    /// `SD_BUS_CREDS_AUGMENT`): the bus driver tells the sender's uid and pid, and sd-bus reads the
    /// rest from /proc/PID/status. Costs one synchronous round trip to the bus driver. Fails when
    /// the sender is gone or its /proc entry cannot be read; a caller must then be refused.
    func senderCredentials() throws(BusFailure) -> CallerCredentials {
        let wanted: [UInt64] = [UInt64(SD_BUS_CREDS_EUID), UInt64(SD_BUS_CREDS_EGID),
                                UInt64(SD_BUS_CREDS_SUPPLEMENTARY_GIDS), UInt64(SD_BUS_CREDS_PID),
                                UInt64(SD_BUS_CREDS_AUGMENT)]
        let mask = wanted.reduce(0, |)
        var creds: OpaquePointer?
        try check(sd_bus_query_sender_creds(pointer, mask, &creds), "cannot read the caller's credentials")
        defer { sd_bus_creds_unref(creds) }
        var euid: uid_t = 0
        try check(sd_bus_creds_get_euid(creds, &euid), "the caller's effective uid is unknown")
        var egid: gid_t = 0
        let hasEgid = sd_bus_creds_get_egid(creds, &egid) >= 0
        var list: UnsafePointer<gid_t>?
        let count = sd_bus_creds_get_supplementary_gids(creds, &list)
        let groups = count < 0 ? nil : Array(UnsafeBufferPointer(start: count > 0 ? list : nil, count: Int(count)))
        var pid: pid_t = 0
        let hasPid = sd_bus_creds_get_pid(creds, &pid) >= 0
        return CallerCredentials(pid: hasPid ? pid : nil, euid: euid, egid: hasEgid ? egid : nil,
                                 supplementaryGroups: groups)
    }
}
