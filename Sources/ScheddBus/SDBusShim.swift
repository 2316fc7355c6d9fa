// Every sd_bus_* call on a connection lives in this file; calls on a message are in
// SDBusShim_Message.swift (STYLE §2: one shim per library, one prefix). Only the non-variadic sd-bus
// API is used (RECIPES: variadic C functions do not import).
import CSchedBus
import CSystemd
import Glibc

/// Where a method call goes.
public struct BusMethod: Sendable, Hashable {
    public var destination: String
    public var path: String
    public var interface: String
    public var member: String
    public init(destination: String, path: String, interface: String, member: String) {
        self.destination = destination; self.path = path; self.interface = interface; self.member = member
    }
}

/// What a method handler did with a call (see `BusConnection.serve`).
public enum BusMethodResult {
    /// The handler sent the reply (`BusMessage.reply`).
    case replied
    /// The handler kept the call (`BusMessage.deferReply()`) and replies later, e.g. after a group commit.
    case deferred
    /// Reply with this D-Bus error.
    case failed(name: String, message: String)
}

/// One sd-bus connection (`sd_bus *`), closed on deinit or `close()`.
///
/// Not thread-safe: used by the thread that opened it (the daemon's loop thread, a test, or the CLI's
/// main thread). Every call that waits on another process is either bounded by a timeout the caller
/// gives (`call`, for the CLI and one-shot tools) or asynchronous (`callAsync`, for the daemon's loop).
///
/// Connection-level traffic: `open` does the D-Bus handshake (`Hello`) with the bus daemon;
/// `addMatch` is asynchronous; `requestName` waits for the bus daemon (never for a peer).
public final class BusConnection {
    let handle: OpaquePointer
    public let target: BusTarget
    /// Slots kept alive for as long as the connection (objects, matches, filters).
    private var slots: [OpaquePointer] = []
    /// Boxes whose userdata pointers sd-bus holds (matches, filters, served objects).
    private var boxes: [AnyObject] = []
    /// Asynchronous calls waiting for their reply, keyed by box identity.
    private var pending: [ObjectIdentifier: PendingCallBox] = [:]
    private var closed = false

    private init(handle: OpaquePointer, target: BusTarget) { self.handle = handle; self.target = target }

    deinit { close() }

    /// Connects to `target` (`sd_bus_open_user`, `sd_bus_open_system`, or `sd_bus_new` +
    /// `sd_bus_set_address` + `sd_bus_start`). `description` names the connection in sd-bus's logs.
    /// The connection never exits the process on disconnect: use `onDisconnect`.
    public static func open(_ target: BusTarget, description: String? = nil) throws(BusError) -> BusConnection {
        var bus: OpaquePointer?
        let what = "connect to \(target)"
        switch target {
        case .session:
            try check(sd_bus_open_user(&bus), what)
        case .system:
            try check(sd_bus_open_system(&bus), what)
        case .address(let address):
            try check(sd_bus_new(&bus), "create a bus connection")
            do throws(BusError) {
                try check(sd_bus_set_address(bus, address), "invalid bus address '\(address)'")
                try check(sd_bus_set_bus_client(bus, 1), "configure the bus connection")
                try check(sd_bus_start(bus), what)
            } catch {
                sd_bus_unref(bus)
                throw error
            }
        }
        if let description { _ = sd_bus_set_description(bus, description) }
        _ = sd_bus_set_exit_on_disconnect(bus, 0)
        return BusConnection(handle: bus!, target: target)
    }

    /// False once the bus daemon hung up (or `close()` was called).
    public var isOpen: Bool { !closed && sd_bus_is_open(handle) > 0 }

    /// This connection's unique name (`:1.42`), nil before `Hello` completed.
    public var uniqueName: String? {
        var name: UnsafePointer<CChar>?
        guard !closed, sd_bus_get_unique_name(handle, &name) >= 0, let name else { return nil }
        return String(cString: name)
    }

    /// Drops subscriptions, fails every asynchronous call still waiting (error `ECONNRESET`, callbacks
    /// run now), flushes queued messages and closes the connection. Idempotent.
    public func close() {
        guard !closed else { return }
        closed = true
        let waiting = pending.values
        pending.removeAll()
        for box in waiting { sd_bus_slot_unref(box.slot) }
        for slot in slots { sd_bus_slot_unref(slot) }
        slots.removeAll()
        sd_bus_detach_event(handle)
        sd_bus_flush_close_unref(handle)
        for box in waiting {
            box.completion(.failure(BusError(operation: box.member, name: "org.freedesktop.DBus.Error.Disconnected",
                                             message: "the connection was closed", errno: ECONNRESET)))
        }
        boxes.removeAll()
    }

    /// Takes the well-known `name`; fails when another connection owns it.
    public func requestName(_ name: String) throws(BusError) {
        let r = sd_bus_request_name(handle, name, 0)
        if r == -EEXIST || r == -EALREADY {
            throw BusError(operation: "own \(name) on \(target)", message: "already owned: is another instance running?",
                           errno: EEXIST)
        }
        try check(r, "own \(name) on \(target)")
    }

    /// Serves `vtable` (written in C with sd-bus's macros, target CSchedBus) at `path`/`interface`: every
    /// method of it reaches `handler`, which switches on `BusMessage.member`. sd-bus checks argument
    /// signatures and answers Introspect, Peer and Properties itself.
    public func serve(path: String, interface: String, vtable: UnsafePointer<sd_bus_vtable>,
                      handler: @escaping (BusMessage) -> BusMethodResult) throws(BusError) {
        schedbus_set_dispatcher(busMethodTrampoline)
        let box = MethodHandlerBox(handler)
        var slot: OpaquePointer?
        try check(sd_bus_add_object_vtable(handle, &slot, path, interface, vtable,
                                           Unmanaged.passUnretained(box).toOpaque()), "serve \(interface) at \(path)")
        boxes.append(box)
        if let slot { slots.append(slot) }
    }

    /// Lets `loop` drive this connection (its fd, its timeouts: replies and call timeouts are dispatched
    /// by the loop). Bus traffic is dispatched at priority 0.
    public func attach(to loop: EventLoop) throws(BusError) {
        try check(sd_bus_attach_event(handle, loop.handle, 0), "attach \(target) to the event loop")
    }

    /// Detaches from the event loop (before the loop is freed).
    public func detach() { if !closed { sd_bus_detach_event(handle) } }

    /// Calls `method` and waits at most `timeoutMicroseconds` (0: sd-bus's 25 s) for the reply. Blocks the
    /// thread: for the CLI and one-shot tools, never for the daemon's loop (use `callAsync`).
    /// `read` sees the reply, which is released afterwards.
    public func call<T>(_ method: BusMethod, timeoutMicroseconds: UInt64 = 0,
                        _ build: (BusMessage) throws(BusError) -> Void,
                        read: (BusMessage) throws(BusError) -> T) throws(BusError) -> T {
        let call = try newCall(method)
        defer { sd_bus_message_unref(call) }
        try build(BusMessage(call))
        var error = sd_bus_error()
        var reply: OpaquePointer?
        let r = sd_bus_call(handle, call, timeoutMicroseconds, &error, &reply)
        if r < 0 { throw BusError(consuming: &error, code: r, method.member) }
        defer { sd_bus_message_unref(reply) }
        return try read(BusMessage(reply!))
    }

    /// Sends `method` and returns at once; `completion` runs exactly once, in a later dispatch of this
    /// connection (the event loop, or `process`): with the reply, or with the error — the peer's, a
    /// timeout after `timeoutMicroseconds` (`isTimeout`), or the connection going away (`isDisconnected`).
    /// The reply is valid only inside `completion`. Throws (and never calls `completion`) when the call
    /// cannot be queued at all.
    /// `autoStart` false: the bus must not start (D-Bus-activate) the destination; a name nobody owns
    /// then fails at once with `isNoOwner`.
    public func callAsync(_ method: BusMethod, timeoutMicroseconds: UInt64, autoStart: Bool = true,
                          _ build: (BusMessage) throws(BusError) -> Void,
                          completion: @escaping (Result<BusMessage, BusError>) -> Void) throws(BusError) {
        guard !closed else {
            throw BusError(operation: method.member, name: "org.freedesktop.DBus.Error.Disconnected",
                           message: "the connection is closed", errno: ENOTCONN)
        }
        let call = try newCall(method)
        defer { sd_bus_message_unref(call) }
        if !autoStart { try check(sd_bus_message_set_auto_start(call, 0), "configure the \(method.member) call") }
        try build(BusMessage(call))
        let box = PendingCallBox(member: method.member, completion: completion)
        box.connection = self
        var slot: OpaquePointer?
        try check(sd_bus_call_async(handle, &slot, call, busReplyTrampoline, Unmanaged.passUnretained(box).toOpaque(),
                                    timeoutMicroseconds), "send \(method.member)")
        box.slot = slot
        pending[ObjectIdentifier(box)] = box
    }

    /// Number of asynchronous calls waiting for their reply.
    public var callsInFlight: Int { pending.count }

    /// A reply trampoline finished with `box`: forget it (its slot is unreferenced by the caller).
    fileprivate func finished(_ box: PendingCallBox) -> Bool {
        pending.removeValue(forKey: ObjectIdentifier(box)) != nil
    }

    /// Calls `handler` for every message matching `rule` (a D-Bus match rule). The AddMatch is sent
    /// asynchronously; messages arriving before the bus daemon installed it are not seen.
    public func addMatch(_ rule: String, _ handler: @escaping (BusMessage) -> Void) throws(BusError) {
        let box = MessageHandlerBox(handler)
        var slot: OpaquePointer?
        try check(sd_bus_add_match_async(handle, &slot, rule, busMessageTrampoline, nil,
                                         Unmanaged.passUnretained(box).toOpaque()), "subscribe to \(rule)")
        boxes.append(box)
        if let slot { slots.append(slot) }
    }

    /// Calls `handler` once when the connection is lost (sd-bus's local
    /// `org.freedesktop.DBus.Local.Disconnected`, dispatched after the bus daemon hung up). Pending
    /// asynchronous calls have failed by then. The handler must not free the connection (it runs inside
    /// its dispatch): schedule that, or exit the loop.
    public func onDisconnect(_ handler: @escaping () -> Void) throws(BusError) {
        let box = MessageHandlerBox { message in
            if message.isSignal(interface: "org.freedesktop.DBus.Local", member: "Disconnected") { handler() }
        }
        var slot: OpaquePointer?
        try check(sd_bus_add_filter(handle, &slot, busMessageTrampoline, Unmanaged.passUnretained(box).toOpaque()),
                  "watch for the loss of \(target)")
        boxes.append(box)
        if let slot { slots.append(slot) }
    }

    /// Emits signal `member` of `interface` from `path`; `build` appends its arguments. With a
    /// `destination` (a unique name) the signal is unicast: the bus delivers it to that connection only,
    /// whatever match rules others added (D-Bus spec, "Message Routing").
    public func emitSignal(path: String, interface: String, member: String, destination: String? = nil,
                           _ build: (BusMessage) throws(BusError) -> Void) throws(BusError) {
        var message: OpaquePointer?
        try check(sd_bus_message_new_signal(handle, &message, path, interface, member), "build signal \(member)")
        defer { sd_bus_message_unref(message) }
        if let destination {
            try check(sd_bus_message_set_destination(message, destination), "address signal \(member) to \(destination)")
        }
        try build(BusMessage(message!))
        try check(sd_bus_send(handle, message, nil), "send signal \(member)")
    }

    /// Flushes queued outgoing messages (replies, signals) to the socket; blocks until written.
    public func flush() { if !closed { sd_bus_flush(handle) } }

    /// Without an event loop: dispatches every queued message, waits up to `timeoutMicroseconds` for
    /// more and dispatches those. Returns false once the connection is gone. Tests and tools only.
    @discardableResult
    public func process(waitingUpTo timeoutMicroseconds: UInt64) -> Bool {
        guard !closed else { return false }
        guard drain() else { return false }
        if sd_bus_wait(handle, timeoutMicroseconds) < 0 { _ = drain(); return false }
        return drain()
    }

    /// Without an event loop: dispatches messages one at a time, waiting for more when none is queued,
    /// until `done()` holds after a dispatch (true) or the connection is gone (false). Unlike
    /// `process(waitingUpTo:)` it never waits once what it waits for has been dispatched (a reply that
    /// arrived with an earlier one): `ScheddBlockingClient.wait`.
    public func process(until done: () -> Bool) -> Bool {
        while !closed {
            if done() { return true }
            let r = sd_bus_process(handle, nil)
            if r < 0 { return false }
            if r > 0 { continue }
            if sd_bus_is_open(handle) <= 0 || sd_bus_wait(handle, .max) < 0 { return false }
        }
        return false
    }

    private func drain() -> Bool {
        while true {
            let r = sd_bus_process(handle, nil)
            if r < 0 { return false }
            if r == 0 { return sd_bus_is_open(handle) > 0 }
        }
    }

    private func newCall(_ method: BusMethod) throws(BusError) -> OpaquePointer {
        var m: OpaquePointer?
        try check(sd_bus_message_new_method_call(handle, &m, method.destination, method.path, method.interface,
                                                 method.member), "build a \(method.member) call")
        return m!
    }
}

// MARK: - Userdata boxes and trampolines

final class MethodHandlerBox {
    let handler: (BusMessage) -> BusMethodResult
    init(_ handler: @escaping (BusMessage) -> BusMethodResult) { self.handler = handler }
}

final class MessageHandlerBox {
    let handler: (BusMessage) -> Void
    init(_ handler: @escaping (BusMessage) -> Void) { self.handler = handler }
}

final class PendingCallBox {
    let member: String
    let completion: (Result<BusMessage, BusError>) -> Void
    var slot: OpaquePointer?
    weak var connection: BusConnection?
    init(member: String, completion: @escaping (Result<BusMessage, BusError>) -> Void) {
        self.member = member; self.completion = completion
    }
}

/// The one C dispatcher of every served vtable (CSchedBus's trampoline calls it).
private func busMethodTrampoline(_ m: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?,
                                 _ error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
    guard let m, let userdata else { return -EINVAL }
    let box = Unmanaged<MethodHandlerBox>.fromOpaque(userdata).takeUnretainedValue()
    switch box.handler(BusMessage(m)) {
    case .replied, .deferred: return 1
    case .failed(let name, let message): return sd_bus_error_set(error, name, message)
    }
}

private func busMessageTrampoline(_ m: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?,
                                  _ error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
    guard let m, let userdata else { return 0 }
    Unmanaged<MessageHandlerBox>.fromOpaque(userdata).takeUnretainedValue().handler(BusMessage(m))
    return 0  // let other matches and filters see the message too
}

/// Reply (or synthesized timeout/disconnect error) of a `callAsync`. sd-bus holds a reference on the
/// slot while this runs, so unreferencing it here is safe.
private func busReplyTrampoline(_ m: OpaquePointer?, _ userdata: UnsafeMutableRawPointer?,
                                _ error: UnsafeMutablePointer<sd_bus_error>?) -> Int32 {
    guard let userdata else { return 0 }
    let box = Unmanaged<PendingCallBox>.fromOpaque(userdata).takeUnretainedValue()
    guard box.connection?.finished(box) == true else { return 0 }  // closed meanwhile: already failed
    sd_bus_slot_unref(box.slot)
    box.slot = nil
    guard let m else {
        box.completion(.failure(BusError(operation: box.member, errno: EIO)))
        return 0
    }
    if let failure = BusMessage(m).methodError(box.member) {
        box.completion(.failure(failure))
    } else {
        box.completion(.success(BusMessage(m)))
    }
    return 0
}
