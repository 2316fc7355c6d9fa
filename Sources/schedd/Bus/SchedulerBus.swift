import CSchedBus
import CSystemd
import ScheddBus
import ScheddClientCore

// schedd's own interface on top of ScheddBus, served by the daemon: its vtable and its signals
// (names from ScheddClientCore's SchedulerNames).

extension BusConnection {
    /// Emits signal `member` of schedd's interface with string arguments; a failure is returned for the log.
    @discardableResult
    func emitSchedulerSignal(_ member: String, strings: [String]) -> BusError? {
        do throws(BusError) {
            try emitSignal(path: SchedulerNames.objectPath, interface: SchedulerNames.interface, member: member) { m throws(BusError) in
                for s in strings { try m.append(s) }
            }
            return nil
        } catch {
            return error
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
