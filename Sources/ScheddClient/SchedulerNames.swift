import ScheddBus

/// schedd's D-Bus names (README, "D-Bus API"): the bus name, object path and versioned interface.
public enum SchedulerNames {
    public static let service = "org.schedd.Scheduler1"
    public static let objectPath = "/org/schedd/Scheduler1"
    public static let interface = "org.schedd.Scheduler1"

    /// A method of org.schedd.Scheduler1.
    static func method(_ member: String) -> BusMethod {
        BusMethod(destination: service, path: objectPath, interface: interface, member: member)
    }

    /// `org.freedesktop.DBus.Peer.Ping` on the bus daemon: a round trip that orders earlier messages.
    static let busPing = BusMethod(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                   interface: "org.freedesktop.DBus.Peer", member: "Ping")
}
