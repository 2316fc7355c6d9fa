@_exported import ScheddProtocol
import ScheddBus

// The bus names themselves are ScheddProtocol's (re-exported here, and by ScheddClient); this adds
// the method addresses the clients call.
extension SchedulerNames {
    /// A method of org.schedd.Scheduler1.
    package static func method(_ member: String) -> BusMethod {
        BusMethod(destination: service, path: objectPath, interface: interface, member: member)
    }

    /// `org.freedesktop.DBus.Peer.Ping` on the bus daemon: a round trip that orders earlier messages.
    package static let busPing = BusMethod(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                           interface: "org.freedesktop.DBus.Peer", member: "Ping")
}
