import Glibc
import ScheddSystem

/// Where a bus connection goes: the user's session bus, the system bus, or an explicit D-Bus address.
public enum BusTarget: Sendable, Equatable, CustomStringConvertible {
    /// `DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus` (`sd_bus_open_user`).
    case session
    /// `DBUS_SYSTEM_BUS_ADDRESS`, else `/run/dbus/system_bus_socket` (`sd_bus_open_system`).
    case system
    /// A D-Bus address (`unix:path=/tmp/bus`).
    case address(String)

    /// Names the bus for messages: `the session bus (unix:path=/run/user/1000/bus)`.
    public var description: String {
        switch self {
        case .session:
            let address = CurrentProcess.environment("DBUS_SESSION_BUS_ADDRESS")
            return "the session bus" + (address.map { " (\($0))" } ?? " (DBUS_SESSION_BUS_ADDRESS is not set)")
        case .system:
            let address = CurrentProcess.environment("DBUS_SYSTEM_BUS_ADDRESS")
            return "the system bus (\(address ?? "unix:path=/run/dbus/system_bus_socket"))"
        case .address(let address): return "the bus at \(address)"
        }
    }
}
