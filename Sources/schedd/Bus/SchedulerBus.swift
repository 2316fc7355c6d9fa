import CSchedBus
import CSystemd
import ScheddBus
import ScheddClientCore

// schedd's own interface on top of ScheddBus, served by the daemon: its vtable and its signals
// (names from ScheddClientCore's SchedulerNames).

extension BusConnection {
    /// Sends signal `member` of schedd's interface (string arguments, the app last) to each connection
    /// subscribed to `app` (SignalSubscriptions: unicast, never broadcast); each failure goes to `log`.
    func emitSchedulerSignal(_ member: String, strings: [String], app: String, to subscriptions: SignalSubscriptions,
                             log: (String) -> Void) {
        for error in subscriptions.emit(on: self, path: SchedulerNames.objectPath, interface: SchedulerNames.interface,
                                        member: member, strings: strings, app: app) {
            log("cannot send the \(member) signal: \(error)")
        }
    }
}

/// The vtable of org.schedd.Scheduler1 (C target CSchedBus).
func schedulerVtable() -> UnsafePointer<sd_bus_vtable> { schedbus_vtable() }

/// The standard D-Bus error for a caller that may not make a call.
let accessDeniedErrorName = SchedulerNames.accessDenied

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
