import Glibc
import SchedCalendar
import ScheddApps
import ScheddBus
import Scheduler

// MARK: - The seam (for the daemon)
//
// `DesktopNotifier` is the `--notifier desktop` backend: it shows due notifications through
// org.freedesktop.Notifications (Desktop Notifications spec 1.2) on a bus connection of ITS OWN, so
// the daemon's service connection (org.schedd.Scheduler1, possibly on the system bus) is independent.
// Wiring, all on the loop thread:
//
//     let notifier = try DesktopNotifier(address: notifyBusAddress)   // nil = the user's session bus
//     try notifier.attach(to: loop)                                    // the loop drives its connection
//     notifier.outcomes.subscribe { outcome in … }                     // the one outcome stream:
//         // .interaction (.opened "action:KEY" / .dismissed), .snooze → Engine.snooze,
//         // .delivered, .deliveryFailed → Engine.deliveryFailed (later!), .serverAppeared → Engine.retryFailed,
//         // .problem → the log
//
// - Never waits on the server: `show` and `close` send asynchronous calls (ScheddBus `callAsync`) and
//   return at once. `show` answers `.pending` (the outcome follows: `.delivered` or `.deliveryFailed`)
//   or `.failed` when it knows at once (no bus, circuit open). Each call is bounded by
//   `Configuration.callTimeoutMicroseconds` (2 s), measured by sd-bus, not by blocking.
// - Circuit breaker: a server that lets a call time out is treated as hung — every later `show` fails
//   at once (`isCircuitOpen`) until org.freedesktop.Notifications changes owner (NameOwnerChanged:
//   the server restarted or another took over); then `.serverAppeared` lets the daemon retry.
// - Outcomes are delivered inside sd-bus dispatch (the loop or `process(waitingUpTo:)`), never inside
//   `show`/`close`; subscribers may call back into `show`/`close`. `.deliveryFailed` may also come while
//   the connection is being replaced: the daemon records failures from a loop callback of its own.
// - Why the outcome stream is subscribed after init: the engine holds the notifier, and the parts that
//   take its outcomes (Delivery, the engine) are built after it; everything the notifier's own parts
//   need is given in `init`.
// - Not Sendable: create, use and drop it on one thread.
// - Choosing the default notifier: `try? DesktopNotifier(address: nil)` is nil without a session bus;
//   `serverPresent` tells whether org.freedesktop.Notifications is owned right now (D-Bus activation
//   of an installed server is not counted: it starts on the first Notify).
// - Kiosk (system daemon, notifications on a user's session bus): `DesktopNotifier(address:
//   "unix:path=/run/user/UID/bus", waitForBus: true)` — see docs/units.md; the daemon should offer
//   `--notify-bus ADDRESS` for it.

/// Shows due notifications on the freedesktop notification server of a D-Bus session.
///
/// Shape: a coordinator over parts, each owning its state (docs/daemon-parts.md "The desktop notifier"):
/// `NotificationsConnection` (the bus connection, reconnect), `CircuitBreaker` (fail fast after a
/// timeout), `ServerCapabilities` (GetCapabilities before the first Notify), `OnScreenMap` (schedd id ↔
/// server id of what is on screen), `InteractionDecoder` (the server's signals → steps) and
/// `DesktopOutcomes` (the one outcome stream). The notifier holds the state of the server instance
/// (its unique name and a generation: a new owner of org.freedesktop.Notifications is a new instance,
/// and a late answer of an earlier instance must not touch the current one) and the alarms a departing
/// server dropped.
///
/// Notifications are shown as their app (`AppPresentation`, from the app's desktop file found by
/// `appDirectory`). What the person does is decoded by `InteractionDecoder` (its table); opening runs
/// through `AppActivator` and is reported `.opened` with what ran; the server going away shows its
/// alarms still on screen again on the next server.
public final class DesktopNotifier: Notifier {
    /// Fixed choices of the Notify call; the defaults are what schedd uses.
    public struct Configuration: Sendable, Hashable {
        public var expireTimeouts = ExpireTimeouts()
        /// Upper bound of each call to the server (sd-bus's reply timeout): 2 s. A call that runs out opens
        /// the circuit (see the type's documentation).
        public var callTimeoutMicroseconds: UInt64 = 2_000_000
        /// While the bus itself is unreachable (kiosk session bus not up yet, bus daemon restarting),
        /// how often an attached notifier tries to connect again: 5 s.
        public var reconnectIntervalMicroseconds: UInt64 = 5_000_000
        public init() {}
    }

    /// The one outcome stream: interactions, snoozes, late delivery outcomes, server arrivals, problems.
    public let outcomes = DesktopOutcomes()
    /// Where apps' desktop files are looked up (the daemon's XDG data dirs, Flatpak exports included).
    public let appDirectory: AppDirectory
    public let configuration: Configuration
    /// The D-Bus address given at init; nil = the user's session bus.
    public let address: String?

    /// The server's capabilities, nil until read (or after the server changed).
    public var capabilities: Set<String>? { server.known }
    /// The server's GetServerInformation answer (name, vendor, version, spec version), nil until read
    /// (`describeServer`) or after the server changed.
    public var serverInformation: [String]? { server.information }
    /// The server's unique bus name, nil when none is known.
    public var serverName: String? { serverOwner }
    /// Why the circuit is open (the server timed out), nil while it is closed.
    public var circuitReason: String? { circuit.reason }
    /// True while calls to the server fail at once because it timed out before (until it changes owner).
    public var isCircuitOpen: Bool { circuit.isOpen }

    private let activator = AppActivator()
    /// Set once at the end of init (its closures reach this notifier weakly).
    private var link: NotificationsConnection!
    private var circuit: CircuitBreaker
    private var server = ServerCapabilities()
    private var onScreen = OnScreenMap()
    /// The unique bus name of the server our ids belong to (signals from anyone else are ignored).
    private var serverOwner: String?
    /// Counts server instances: a late answer of an earlier instance must not touch the current one.
    private var generation = 0
    /// Alarms on screen when their server went away: shown again when a server appears (CONTRACT §11).
    private var droppedAlarms: [DueNotification] = []
    /// The bound on showing alarms again (`AlarmReshow`).
    private var alarmReshows = AlarmReshow()

    /// Connects to `address` (e.g. `unix:path=/run/user/1000/bus`), or to the user's session bus when
    /// nil, and subscribes to the server's signals and NameOwnerChanged. A missing notification server
    /// is not an error here (`show` reports it). When the bus itself cannot be reached, init throws —
    /// unless `waitForBus` is true: then it starts unconnected, `show` fails with the reason, and once
    /// attached to an event loop it retries every `reconnectIntervalMicroseconds`, reporting
    /// `.serverAppeared` when it gets a bus with a notification server (a kiosk user's session bus
    /// that comes up after the system daemon).
    public init(address: String?, configuration: Configuration = Configuration(), waitForBus: Bool = false,
                appDirectory: AppDirectory = AppDirectory.fromEnvironment()) throws(BusError) {
        self.address = address
        self.configuration = configuration
        self.appDirectory = appDirectory
        circuit = CircuitBreaker(timeoutMicroseconds: configuration.callTimeoutMicroseconds)
        link = try NotificationsConnection(
            address: address, callTimeoutMicroseconds: configuration.callTimeoutMicroseconds,
            reconnectIntervalMicroseconds: configuration.reconnectIntervalMicroseconds, waitForBus: waitForBus,
            signals: { [weak self] signal in self?.handle(signal) },
            events: { [weak self] event in self?.connectionEvent(event) })
    }

    /// True while connected to the bus (says nothing about a notification server).
    public var isConnected: Bool { link.isOpen }

    /// True when a notification server owns org.freedesktop.Notifications, as last seen (at connect,
    /// by NameOwnerChanged, or from a Notify reply). The daemon's "desktop is the default when the
    /// session has a notification server" rule can test this right after init.
    public var serverPresent: Bool { isConnected && serverOwner != nil }

    /// Deliveries handed over and not answered yet (Notify, GetCapabilities and CloseNotification calls
    /// in flight, plus notifications waiting for the capabilities).
    public var callsInFlight: Int { (link.bus?.connection.callsInFlight ?? 0) + server.waiting.count }

    /// Lets the daemon's event loop drive this connection's signals, replies and the reconnect timer. Survives
    /// reconnects: a replacement connection is attached to the same loop.
    public func attach(to loop: EventLoop) throws(BusError) { try link.attach(to: loop) }

    /// Detaches from the event loop (before the daemon frees it).
    public func detach() { link.detach() }

    /// Without sd-event: dispatches what arrived, waiting up to `seconds` for more. Tests and one-shot
    /// tools use this; the daemon attaches instead.
    public func process(waitingUpTo seconds: Double) {
        link.process(waitingUpTo: UInt64(max(0, seconds) * 1_000_000))
    }

    /// The server id of the notification of schedule `id` of `app` believed on screen, nil when none.
    public func serverId(forSchedule id: String, app: String = Engine.defaultApp) -> UInt32? {
        onScreen.serverId(app: app, id: id)
    }

    /// Alarms waiting for a server to be shown again (the previous one went away with them).
    public var alarmsWaitingForServer: Int { droppedAlarms.count }

    // MARK: - Notifier

    /// Sends Notify (after GetCapabilities, the first time per server instance), replacing the same
    /// schedule's notification when still on screen. Never waits: `.pending` when sent (the outcome comes
    /// as `.delivered`/`.deliveryFailed`), `.failed` when it cannot be sent at all or the circuit is
    /// open. O(1) work per call.
    public func show(_ notification: DueNotification) -> DeliveryResult {
        if let reason = circuit.reason { return .failed(reason: reason) }
        let bus: NotificationsBus
        do throws(BusError) {
            bus = try link.connected()
        } catch {
            return .failed(reason: failureReason(error))
        }
        if let capabilities = server.known { return send(notification, capabilities: capabilities, on: bus) }
        server.wait(notification)
        if !server.requested {
            do throws(BusError) {
                try requestCapabilities(on: bus)
            } catch {
                server.stopWaiting(notification)
                return .failed(reason: failureReason(error))
            }
        }
        return .pending
    }

    /// Asks the current server for its capabilities and GetServerInformation, asynchronously (for
    /// `schedd status`; never starts a server by D-Bus activation). Called at attach and when a server appears.
    public func describeServer() {
        guard serverOwner != nil, let bus = link.openBus else { return }
        let askedOf = generation
        try? bus.getServerInformation { [weak self] result in
            guard let self, askedOf == generation, case .success(let info) = result else { return }
            server.information = info
        }
        if server.known == nil && !server.requested { try? requestCapabilities(on: bus) }
    }

    /// Closes the notification of schedule `id` of `app` when the server still shows it (it has not sent
    /// `NotificationClosed` for it); returns whether it did. Never waits: CloseNotification is sent
    /// asynchronously; a failure is ignored (a server that went away took its notifications with it),
    /// except that a timeout opens the circuit.
    @discardableResult
    public func close(app: String, id: String) -> Bool {
        guard let serverId = onScreen.removeSchedule(app: app, id: id) else { return false }
        closeOnServer(serverId)
        return true
    }

    // MARK: - Calls to the server

    /// CloseNotification, asynchronously (skipped while the circuit is open).
    private func closeOnServer(_ serverId: UInt32) {
        guard !circuit.isOpen, let bus = link.openBus else { return }
        let sentTo = generation
        try? bus.closeNotification(serverId) { [weak self] error in
            guard let self, let error, error.isTimeout, sentTo == generation else { return }
            openCircuit(error)
        }
    }

    /// Human reason for a failed delivery, for the `failed` history record.
    static func failureReason(_ error: BusError, timeout: UInt64) -> String {
        if error.isNoOwner { return "no notification server on the bus (\(error.name ?? ""))" }
        if error.isTimeout {
            return "notification server did not answer \(error.operation) within \(Double(timeout) / 1e6) s"
        }
        if error.isDisconnected { return "notification bus lost: \(error.detail)" }
        return "notification server unreachable: \(error)"
    }

    private func failureReason(_ error: BusError) -> String {
        Self.failureReason(error, timeout: configuration.callTimeoutMicroseconds)
    }

    private func send(_ notification: DueNotification, capabilities: Set<String>, on bus: NotificationsBus)
        -> DeliveryResult {
        // A user's namespace on a bus of several users (`u1001:org.example.App`) is shown as its app.
        let presentation = appDirectory.presentation(for: AppNamespace.appID(of: notification.app)?.rawValue ?? notification.app)
        let request = NotifyRequest(notification: notification, capabilities: capabilities,
                                    replacesId: onScreen.serverId(app: notification.app, id: notification.id) ?? 0,
                                    configuration: configuration, presentation: presentation)
        let dropped = NotifyRequest.droppedButtons(notification, capabilities: capabilities, presentation: presentation)
        if notification.extras.alarm && !server.alarmLimitationsLogged {
            server.alarmLimitationsLogged = true
            let missing = AlarmPresentation.limitations(capabilities: capabilities)
            if !missing.isEmpty {
                outcomes.emit(.problem("the notification server \(serverOwner ?? "") cannot show alarms in full: "
                                       + missing.joined(separator: "; ") + " (logged once per server)"))
            }
        }
        if !dropped.isEmpty && !notification.extras.alarm {
            outcomes.emit(.problem("the notification server has no 'actions' capability: \(notification.id) [\(notification.app)] "
                                   + "is shown without its buttons (\(dropped.joined(separator: ", "))); it cannot be opened, "
                                   + "snoozed or answered from the notification"))
        }
        let sentTo = generation
        do throws(BusError) {
            try bus.notify(request) { [weak self] result in self?.notifyAnswered(notification, result, sentTo: sentTo) }
            return .pending
        } catch {
            return .failed(reason: failureReason(error))
        }
    }

    private func notifyAnswered(_ notification: DueNotification,
                                _ result: Result<(id: UInt32, sender: String?), BusError>, sentTo: Int) {
        switch result {
        case .success(let (serverId, sender)):
            if sentTo == generation {
                if let sender, sender != serverOwner { adoptServer(sender) }
                onScreen.shown(notification, as: serverId)
            }
            outcomes.emit(.delivered(notification))
        case .failure(let error):
            if error.isTimeout && sentTo == generation { openCircuit(error) }
            outcomes.emit(.deliveryFailed(notification, reason: failureReason(error)))
        }
    }

    private func requestCapabilities(on bus: NotificationsBus) throws(BusError) {
        let askedOf = generation
        try bus.getCapabilities { [weak self] result in self?.capabilitiesAnswered(result, askedOf: askedOf) }
        server.requested = true
    }

    private func capabilitiesAnswered(_ result: Result<[String], BusError>, askedOf: Int) {
        guard askedOf == generation else {
            // The server changed meanwhile: ask the new one for the notifications still waiting.
            if !server.waiting.isEmpty && !server.requested, let bus = link.openBus {
                do throws(BusError) { try requestCapabilities(on: bus) } catch { failWaiting(error) }
            }
            return
        }
        server.requested = false
        switch result {
        case .success(let caps):
            let caps = Set(caps)
            server.answered(caps)
            let waiting = server.takeWaiting()
            guard let bus = link.bus else { return failWaiting(waiting, reason: "notification bus lost") }
            for notification in waiting {
                if case .failed(let reason) = send(notification, capabilities: caps, on: bus) {
                    outcomes.emit(.deliveryFailed(notification, reason: reason))
                }
            }
        case .failure(let error):
            if error.isTimeout { openCircuit(error) }
            failWaiting(error)
        }
    }

    private func failWaiting(_ error: BusError) {
        failWaiting(server.takeWaiting(), reason: failureReason(error))
    }

    private func failWaiting(_ waiting: [DueNotification], reason: String) {
        for notification in waiting { outcomes.emit(.deliveryFailed(notification, reason: reason)) }
    }

    /// The server let a call time out: fail fast until it changes owner.
    private func openCircuit(_ error: BusError) {
        guard circuit.open(afterTimeoutOf: error.operation) else { return }
        outcomes.emit(.problem("the notification server \(serverOwner ?? "") is not answering (\(error.operation) timed out): "
                               + "deliveries fail at once until org.freedesktop.Notifications changes owner"))
    }

    // MARK: - The server instance

    private func connectionEvent(_ event: NotificationsConnection.Event) {
        switch event {
        case .connected(let owner): serverOwner = owner
        case .dropping: forgetServer()
        case .reconnected: if serverOwner != nil { outcomes.emit(.serverAppeared) }
        case .problem(let line): outcomes.emit(.problem(line))
        }
    }

    /// Forgets everything that belonged to the previous server instance (its circuit included).
    private func forgetServer() {
        // Alarms it still showed were dropped unanswered: they come back on the next server.
        droppedAlarms += onScreen.onScreen.filter { $0.extras.alarm && !droppedAlarms.contains($0) }
            .sorted { ($0.due, $0.id) < ($1.due, $1.id) }
        generation += 1
        server.serverChanged()
        circuit.reset()
        serverOwner = nil
        onScreen.clear()
    }

    /// A Notify reply came from `owner`: if that is not the server we knew, its NameOwnerChanged is
    /// still queued — forget the old instance now (the queued signal then finds `owner` adopted).
    private func adoptServer(_ owner: String) {
        if serverOwner != nil { forgetServer() }
        serverOwner = owner
    }

    /// Applies one signal (called from sd-bus dispatch).
    func handle(_ signal: NotificationsSignal) {
        switch signal {
        case .disconnected:
            // Inside the dying connection's dispatch: only forget; the timer replaces the connection.
            forgetServer()
            failWaiting(BusError(operation: "GetCapabilities", name: "org.freedesktop.DBus.Error.Disconnected",
                                 message: "the bus daemon hung up", errno: ECONNRESET))
            link.scheduleReconnect()
        case .nameOwnerChanged(_, let newOwner):
            // A new owner is a new server instance, unless a Notify reply already told us about it.
            if newOwner.isEmpty || newOwner != serverOwner {
                forgetServer()
                serverOwner = newOwner.isEmpty ? nil : newOwner
                if !server.waiting.isEmpty, let bus = link.openBus {
                    do throws(BusError) { try requestCapabilities(on: bus) } catch { failWaiting(error) }
                }
            }
            if !newOwner.isEmpty {
                describeServer()
                reshowDroppedAlarms()
                outcomes.emit(.serverAppeared)
            }
        case .activationToken(let sender, let serverId, let token):
            interact(.activationToken(id: serverId, token: token), from: sender)
        case .actionInvoked(let sender, let serverId, let key):
            interact(.actionInvoked(id: serverId, key: key), from: sender)
        case .notificationClosed(let sender, let serverId, let reason):
            interact(.closed(id: serverId, reason: reason), from: sender)
        }
    }

    /// Runs the decoder's steps for an interaction signal of the current server.
    private func interact(_ interaction: ServerInteraction, from sender: String) {
        guard serverOwner == nil || sender == serverOwner else { return }
        for step in InteractionDecoder.decode(interaction, onScreen: &onScreen, reshows: &alarmReshows) {
            switch step {
            case .close(let serverId): closeOnServer(serverId)
            case .report(let interaction): outcomes.emit(.interaction(interaction))
            case .snooze(let notification, let seconds): outcomes.emit(.snooze(notification, seconds: seconds))
            case .open(let notification, let key, let token): open(notification, key: key, token: token)
            case .reshowAlarm(let alarm, let why): reshowAlarm(alarm, why: why)
            }
        }
    }

    /// Opens `notification`'s app for action `key` (`default`: the notification itself) and reports
    /// `.opened` with what ran once it is known (CONTRACT §8 "Opening it opens the app").
    private func open(_ notification: DueNotification, key: String, token: String?) {
        let plan: AppActivation.Plan
        if let app = try? AppID(validating: notification.app) {
            plan = AppActivation.plan(
                app: app, entry: appDirectory.entry(for: notification.app),
                invocation: key == "default" ? .body : .button(key), deepLink: notification.extras.deepLink,
                action: notification.extras.action.map { ($0.name, $0.dataJSON) }, activationToken: token)
        } else {
            plan = .nothing(reason: AppNamespace.parse(notification.app) != nil
                            ? "\(notification.app) is another user's app: a daemon serving several users opens only its own user's apps"
                            : "\(notification.app) is not a valid app id")
        }
        let app = notification.app, id = notification.id
        activator.run(plan, app: app, on: link.bus?.connection) { [weak self] ran, ok in
            self?.outcomes.emit(.interaction(Interaction(app: app, id: id, event: .opened, reason: "action:\(key)",
                                                         ran: ran, ok: ok)))
        }
    }

    // MARK: - Alarms shown again (CONTRACT §11)

    /// Shows `alarm` again, at once, unless it was shown again `AlarmReshow.maxReshows` times already
    /// (then it is left closed and the log says so once). A failure goes the usual way (`failed`, retried).
    private func reshowAlarm(_ alarm: DueNotification, why: String) {
        guard alarmReshows.allow(InteractionDecoder.alarmKey(alarm)) else {
            outcomes.emit(.problem("alarm \(alarm.id) [\(alarm.app)] was dropped unanswered \(AlarmReshow.maxReshows + 1) "
                                   + "times: not shown again (\(why))"))
            return
        }
        outcomes.emit(.problem("alarm \(alarm.id) [\(alarm.app)] shown again: \(why)"))
        if case .failed(let reason) = show(alarm) { outcomes.emit(.deliveryFailed(alarm, reason: reason)) }
    }

    /// The alarms the previous server dropped when it went away, shown on the new one.
    private func reshowDroppedAlarms() {
        let alarms = droppedAlarms
        droppedAlarms.removeAll()
        for alarm in alarms { reshowAlarm(alarm, why: "the notification server restarted") }
    }
}
