import ScheddBus

/// The notifier's own bus connection to org.freedesktop.Notifications, kept up: reconnecting once on
/// the next call when the bus daemon hung up, and — once attached to an event loop — every
/// `reconnectIntervalMicroseconds` while the bus cannot be reached (a kiosk session bus not up yet).
///
/// Shape: a class owning one `NotificationsBus` at a time and the reconnect timer; everything it needs
/// comes in `init` (where signals go, where its events go). It knows nothing of notifications.
/// Events, in the order they happen: `.connected(owner)` for each new connection (the server's
/// unique name or nil), `.dropping` just before a connection is closed (its calls in flight then fail),
/// `.reconnected` when the timer got a connection, `.problem` when the timer cannot be armed.
/// Not Sendable: one thread.
final class NotificationsConnection {
    enum Event {
        case connected(serverOwner: String?)
        case dropping
        case reconnected
        case problem(String)
    }

    private let address: String?
    private let callTimeoutMicroseconds: UInt64
    private let reconnectIntervalMicroseconds: UInt64
    private let signals: (NotificationsSignal) -> Void
    private let events: (Event) -> Void
    private(set) var bus: NotificationsBus?
    private var loop: EventLoop?
    private var reconnectTimer: EventTimer?

    /// Connects to `address` (nil: the session bus). Throws when the bus cannot be reached, unless
    /// `waitForBus`: then it starts unconnected and the timer tries again once attached.
    init(address: String?, callTimeoutMicroseconds: UInt64, reconnectIntervalMicroseconds: UInt64, waitForBus: Bool,
         signals: @escaping (NotificationsSignal) -> Void, events: @escaping (Event) -> Void) throws(BusError) {
        self.address = address
        self.callTimeoutMicroseconds = callTimeoutMicroseconds
        self.reconnectIntervalMicroseconds = reconnectIntervalMicroseconds
        self.signals = signals
        self.events = events
        do {
            bus = try makeBus()
        } catch where waitForBus {
            bus = nil
        }
    }

    deinit {
        try? reconnectTimer?.disarm()
        bus?.close()
    }

    /// The connection when it is open, else nil.
    var openBus: NotificationsBus? {
        guard let bus, bus.isOpen else { return nil }
        return bus
    }

    var isOpen: Bool { bus?.isOpen ?? false }

    /// Lets `loop` drive the connection (and every replacement) and the reconnect timer.
    func attach(to loop: EventLoop) throws(BusError) {
        try bus?.attach(to: loop)
        self.loop = loop
        if bus == nil { scheduleReconnect() }
    }

    func detach() {
        try? reconnectTimer?.disarm()
        reconnectTimer = nil
        bus?.detach()
        loop = nil
    }

    /// Without sd-event: dispatches what arrived, waiting up to `microseconds`; a dead connection is dropped.
    func process(waitingUpTo microseconds: UInt64) {
        if bus?.process(waitingUpTo: microseconds) == false { drop() }
    }

    /// The open connection, reconnecting once if the bus daemon hung up since the last call.
    func connected() throws(BusError) -> NotificationsBus {
        if let openBus { return openBus }
        drop()
        let new = try makeBus()
        if let loop { try new.attach(to: loop) }
        bus = new
        return new
    }

    /// Closes the connection (its calls in flight fail), after `.dropping`.
    func drop() {
        let old = bus
        bus = nil
        events(.dropping)
        old?.close()
    }

    /// Arms the reconnect timer (only when attached to a loop; without one, the next call reconnects).
    func scheduleReconnect() {
        guard let loop else { return }
        do throws(BusError) {
            if reconnectTimer == nil {
                reconnectTimer = try loop.addTimer(clock: .monotonic) { [weak self] in self?.reconnectNow() }
            }
            try reconnectTimer?.arm(afterMicroseconds: reconnectIntervalMicroseconds)
        } catch {
            events(.problem("cannot arm the notification bus's reconnect timer: \(error)"))
        }
    }

    /// Timer callback (outside any bus dispatch, so the old connection may be freed here).
    private func reconnectNow() {
        guard !isOpen else { return }
        drop()
        do throws(BusError) {
            let new = try makeBus()
            if let loop { try new.attach(to: loop) }
            bus = new
            events(.reconnected)
        } catch {
            scheduleReconnect()
        }
    }

    private func makeBus() throws(BusError) -> NotificationsBus {
        let new = try NotificationsBus(address: address, callTimeoutMicroseconds: callTimeoutMicroseconds, deliver: signals)
        events(.connected(serverOwner: new.serverOwner()))
        return new
    }
}
