import CSchedBus
import CSystemd
import ScheddBus

// schedd's own interface on top of ScheddBus: its vtable, its calls and its signals.

extension BusConnection {
    /// Calls `member` of org.schedd.Scheduler1 on the daemon and hands the reply to `read`.
    /// `timeoutMicroseconds` 0 is sd-bus's default (25 s). Blocking: the CLI only.
    func callScheduler<T>(_ member: String, timeoutMicroseconds: UInt64 = 0,
                          _ build: (BusMessage) throws(BusError) -> Void,
                          read: (BusMessage) throws(BusError) -> T) throws(BusError) -> T {
        try call(BusMethod(destination: BusNames.service, path: BusNames.objectPath, interface: BusNames.interface,
                           member: member), timeoutMicroseconds: timeoutMicroseconds, build, read: read)
    }

    /// Sends signal `member` of schedd's interface (string arguments, the app last) to each connection
    /// subscribed to `app` (SignalSubscriptions: unicast, never broadcast); failures are logged by
    /// `log`.
    func emitSchedulerSignal(_ member: String, strings: [String], app: String, to subscriptions: SignalSubscriptions,
                             log: (String) -> Void) {
        for error in subscriptions.emit(on: self, path: BusNames.objectPath, interface: BusNames.interface, member: member,
                                        strings: strings, app: app) {
            log("cannot send the \(member) signal: \(error)")
        }
    }
}

/// The vtable of org.schedd.Scheduler1 (C target CSchedBus).
func schedulerVtable() -> UnsafePointer<sd_bus_vtable> { schedbus_vtable() }

/// The standard D-Bus error for a caller that may not make a call.
let accessDeniedErrorName = "org.freedesktop.DBus.Error.AccessDenied"

extension BusTarget {
    /// Reads `--bus`; nil (absent) means the session bus.
    init(option: String?) throws(CommandFailure) {
        switch option {
        case nil, "session"?: self = .session
        case "system"?: self = .system
        case let text? where text.contains(":") && text.contains("="): self = .address(text)
        case let text?:
            throw .usage("--bus needs 'session', 'system' or a D-Bus address like unix:path=/run/bus, not '\(text)'")
        }
    }
}
