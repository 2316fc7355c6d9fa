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
//     notifier.onInteraction = { i in … }                              // .opened "action:KEY" / .dismissed
//     notifier.onSnooze = { notification, seconds in … }               // → Engine.snooze
//     notifier.onDeliveryFailed = { notification, reason in … }        // → Engine.deliveryFailed (later!)
//     notifier.onServerAppeared = { … }                                // → Engine.retryFailed
//
// - Never waits on the server: `show` and `close` send asynchronous calls (ScheddBus `callAsync`) and
//   return at once. `show` answers `.pending` (the outcome follows: `onDelivered` or `onDeliveryFailed`)
//   or `.failed` when it knows at once (no bus, circuit open). Each call is bounded by
//   `Configuration.callTimeoutMicroseconds` (2 s), measured by sd-bus, not by blocking.
// - Circuit breaker: a server that lets a call time out is treated as hung — every later `show` fails
//   at once (`isCircuitOpen`) until org.freedesktop.Notifications changes owner (NameOwnerChanged:
//   the server restarted or another took over); then `onServerAppeared` lets the daemon retry.
// - The callbacks run inside sd-bus dispatch (the loop or `process(waitingUpTo:)`), never inside
//   `show`/`close`; they may call back into `show`/`close`. `onDeliveryFailed` may also run while the
//   connection is being replaced: the daemon records failures from a loop callback of its own.
// - Not Sendable: create, use and drop it on one thread.
// - Choosing the default notifier: `try? DesktopNotifier(address: nil)` is nil without a session bus;
//   `serverPresent` tells whether org.freedesktop.Notifications is owned right now (D-Bus activation
//   of an installed server is not counted: it starts on the first Notify).
// - Kiosk (system daemon, notifications on a user's session bus): `DesktopNotifier(address:
//   "unix:path=/run/user/UID/bus", waitForBus: true)` — see docs/units.md; the daemon should offer
//   `--notify-bus ADDRESS` for it.

/// Shows due notifications on the freedesktop notification server of a D-Bus session.
///
/// State, per server instance (a new owner of org.freedesktop.Notifications is a new instance):
/// - `capabilities`: read with GetCapabilities before the first Notify, cached until the owner changes.
/// - the id map schedd id ↔ server id of notifications this notifier believes are on screen; an entry
///   goes when the server reports the notification closed, when `close(id:)` closes it, or (the whole
///   map) when the server goes away — a new server's ids mean nothing for the old one's.
///
/// Notifications are shown as their app (`AppPresentation`, from the app's desktop file found by
/// `appDirectory`), and the map is keyed by (app, schedule id): two apps may both show `run_1:a`.
///
/// Interactions (`onInteraction`), from the spec's signals for ids in the map:
/// | signal | recorded |
/// |---|---|
/// | `ActivationToken(id, TOKEN)` | nothing yet: kept for the `ActionInvoked` that follows |
/// | `ActionInvoked(id, KEY)` | `.opened`, reason `action:KEY` (`default` = the body was clicked), after opening the app (`AppActivation`: `ran`, `ok`) |
/// | `ActionInvoked(id, schedd-snooze-S)` | `onSnooze(notification, S)`; the notification is closed (hidden) |
/// | `NotificationClosed(id, 2)` dismissed by the user | `.dismissed` — unless an action was invoked first (servers close a notification after its action: that is `opened` only) |
/// | `NotificationClosed(id, 1)` expired | nothing: the person did nothing with it (the id is forgotten); an alarm is shown again (bounded: `AlarmReshow`) |
/// | `ActionInvoked(id, schedd-dismiss)` on an alarm | `.dismissed`, reason `action:schedd-dismiss`; closed |
/// | the server goes away | its alarms still on screen are shown again on the next server |
/// | `NotificationClosed(id, 3)` closed by CloseNotification | nothing: schedd (a cancel) closed it |
/// | `NotificationClosed(id, 4)` undefined | nothing |
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

    /// What the person did with a notification of `app`: `.opened` (reason `action:KEY`, `ran`/`ok`: what
    /// opening ran for the app and whether it worked) or `.dismissed` (reason nil).
    public struct Interaction: Sendable, Hashable {
        public var app: String
        public var id: String
        public var event: HistoryRecord.Event
        public var reason: String?
        public var ran: String?
        public var ok: Bool?
        public init(app: String, id: String, event: HistoryRecord.Event, reason: String?, ran: String? = nil,
                    ok: Bool? = nil) {
            self.app = app; self.id = id; self.event = event; self.reason = reason; self.ran = ran; self.ok = ok
        }
    }

    public var onInteraction: ((Interaction) -> Void)?
    /// A snooze button was pressed on `notification` (as shown): the daemon stores it for `seconds`.
    public var onSnooze: ((_ notification: DueNotification, _ seconds: Int64) -> Void)?
    /// Where apps' desktop files are looked up (the daemon's XDG data dirs, Flatpak exports included).
    public var appDirectory = AppDirectory.fromEnvironment()
    let activator = AppActivator()
    /// Called when a notification server takes the name org.freedesktop.Notifications (first start or
    /// restart): the daemon retries failed deliveries (`Engine.retryFailed`).
    public var onServerAppeared: (() -> Void)?
    /// Called when the server confirmed a notification that `show` answered `.pending`.
    public var onDelivered: ((DueNotification) -> Void)?
    /// Called when a notification that `show` answered `.pending` could not be shown (the server's error,
    /// a timeout, the bus going away); `reason` is for history's `failed` record.
    public var onDeliveryFailed: ((_ notification: DueNotification, _ reason: String) -> Void)?
    /// Called with a line for the log when something the daemon cannot see otherwise went wrong (the
    /// circuit opened, a reconnect timer could not be armed, a server without `actions` got a
    /// notification whose buttons it cannot show).
    public var onProblem: ((String) -> Void)?

    public let configuration: Configuration
    /// The D-Bus address given at init; nil = the user's session bus.
    public let address: String?

    /// The server's capabilities, nil until read (or after the server changed).
    public private(set) var capabilities: Set<String>?
    /// The server's GetServerInformation answer (name, vendor, version, spec version), nil until read
    /// (`describeServer`) or after the server changed.
    public private(set) var serverInformation: [String]?
    /// The server's unique bus name, nil when none is known.
    public var serverName: String? { serverOwner }
    /// Why the circuit is open (the server timed out), nil while it is closed.
    public private(set) var circuitReason: String?
    /// True while calls to the server fail at once because it timed out before (until it changes owner).
    public var isCircuitOpen: Bool { circuitReason != nil }

    private var connection: NotificationsBus?
    private var attachedLoop: EventLoop?
    private var reconnectTimer: EventTimer?
    /// The unique bus name of the server our ids belong to (signals from anyone else are ignored).
    private var serverOwner: String?
    /// (app, schedule id) of a notification.
    struct Key: Hashable { var app: String; var id: String }
    private var serverIds: [Key: UInt32] = [:]
    /// What is on screen under each server id, as shown (for snooze and opening).
    private var shown: [UInt32: DueNotification] = [:]
    /// Server ids whose action was invoked: their later close (reason 2) is not a dismissal.
    private var actionInvoked: Set<UInt32> = []
    /// Activation tokens the server sent for a server id, waiting for its `ActionInvoked`.
    private var tokens: [UInt32: String] = [:]
    /// Counts server instances: a late answer of an earlier instance must not touch the current one.
    private var generation = 0
    /// Notifications waiting for the first GetCapabilities answer of this server instance.
    private var waitingForCapabilities: [DueNotification] = []
    private var capabilitiesRequested = false
    /// Alarms on screen when their server went away: shown again when a server appears (CONTRACT §11).
    private var droppedAlarms: [DueNotification] = []
    /// The bound on showing alarms again (`AlarmReshow`).
    private var alarmReshows = AlarmReshow()
    /// Whether this server instance's alarm limitations were logged (once per instance).
    private var alarmLimitationsLogged = false

    /// Connects to `address` (e.g. `unix:path=/run/user/1000/bus`), or to the user's session bus when
    /// nil, and subscribes to the server's signals and NameOwnerChanged. A missing notification server
    /// is not an error here (`show` reports it). When the bus itself cannot be reached, init throws —
    /// unless `waitForBus` is true: then it starts unconnected, `show` fails with the reason, and once
    /// attached to an event loop it retries every `reconnectIntervalMicroseconds`, calling
    /// `onServerAppeared` when it gets a bus with a notification server (a kiosk user's session bus
    /// that comes up after the system daemon).
    public init(address: String?, configuration: Configuration = Configuration(), waitForBus: Bool = false)
        throws(BusError) {
        self.address = address
        self.configuration = configuration
        do {
            connection = try makeConnection()
        } catch where waitForBus {
            connection = nil
        }
    }

    deinit {
        try? reconnectTimer?.disarm()
        connection?.close()
    }

    /// True while connected to the bus (says nothing about a notification server).
    public var isConnected: Bool { connection?.isOpen ?? false }

    /// True when a notification server owns org.freedesktop.Notifications, as last seen (at connect,
    /// by NameOwnerChanged, or from a Notify reply). The daemon's "desktop is the default when the
    /// session has a notification server" rule can test this right after init.
    public var serverPresent: Bool { isConnected && serverOwner != nil }

    /// Deliveries handed over and not answered yet (Notify, GetCapabilities and CloseNotification calls
    /// in flight, plus notifications waiting for the capabilities).
    public var callsInFlight: Int { (connection?.connection.callsInFlight ?? 0) + waitingForCapabilities.count }

    /// Lets the daemon's event loop drive this connection's signals, replies and the reconnect timer. Survives
    /// reconnects: a replacement connection is attached to the same loop.
    public func attach(to loop: EventLoop) throws(BusError) {
        try connection?.attach(to: loop)
        attachedLoop = loop
        if connection == nil { scheduleReconnect() }
    }

    /// Detaches from the event loop (before the daemon frees it).
    public func detach() {
        try? reconnectTimer?.disarm()
        reconnectTimer = nil
        connection?.detach()
        attachedLoop = nil
    }

    /// Without sd-event: dispatches what arrived, waiting up to `seconds` for more. Tests and one-shot
    /// tools use this; the daemon attaches instead.
    public func process(waitingUpTo seconds: Double) {
        if connection?.process(waitingUpTo: UInt64(max(0, seconds) * 1_000_000)) == false { dropConnection() }
    }

    /// The server id of the notification of schedule `id` of `app` believed on screen, nil when none.
    public func serverId(forSchedule id: String, app: String = Engine.defaultApp) -> UInt32? {
        serverIds[Key(app: app, id: id)]
    }

    // MARK: - Notifier

    /// Sends Notify (after GetCapabilities, the first time per server instance), replacing the same
    /// schedule's notification when still on screen. Never waits: `.pending` when sent (the outcome comes
    /// through `onDelivered`/`onDeliveryFailed`), `.failed` when it cannot be sent at all or the circuit is
    /// open. O(1) work per call.
    public func show(_ notification: DueNotification) -> DeliveryResult {
        if let circuitReason { return .failed(reason: circuitReason) }
        let bus: NotificationsBus
        do throws(BusError) {
            bus = try connected()
        } catch {
            return .failed(reason: Self.failureReason(error, timeout: configuration.callTimeoutMicroseconds))
        }
        if let capabilities { return send(notification, capabilities: capabilities, on: bus) }
        waitingForCapabilities.append(notification)
        if !capabilitiesRequested {
            do throws(BusError) {
                try requestCapabilities(on: bus)
            } catch {
                waitingForCapabilities.removeAll { $0 == notification }
                return .failed(reason: Self.failureReason(error, timeout: configuration.callTimeoutMicroseconds))
            }
        }
        return .pending
    }

    /// Asks the current server for its capabilities and GetServerInformation, asynchronously (for
    /// `schedd status`; never starts a server by D-Bus activation). Called at attach and when a server appears.
    public func describeServer() {
        guard serverOwner != nil, let connection, connection.isOpen else { return }
        let askedOf = generation
        try? connection.getServerInformation { [weak self] result in
            guard let self, askedOf == generation, case .success(let info) = result else { return }
            serverInformation = info
        }
        if capabilities == nil && !capabilitiesRequested { try? requestCapabilities(on: connection) }
    }

    /// Closes the notification of schedule `id` of `app` when the server still shows it (it has not sent
    /// `NotificationClosed` for it); returns whether it did. Never waits: CloseNotification is sent
    /// asynchronously; a failure is ignored (a server that went away took its notifications with it),
    /// except that a timeout opens the circuit.
    @discardableResult
    public func close(app: String, id: String) -> Bool {
        guard let serverId = serverIds.removeValue(forKey: Key(app: app, id: id)) else { return false }
        forget(serverId)
        closeOnServer(serverId)
        return true
    }

    /// CloseNotification, asynchronously (skipped while the circuit is open).
    private func closeOnServer(_ serverId: UInt32) {
        guard circuitReason == nil, let connection, connection.isOpen else { return }
        let sentTo = generation
        try? connection.closeNotification(serverId) { [weak self] error in
            guard let self, let error, error.isTimeout, sentTo == generation else { return }
            openCircuit(error)
        }
    }

    private func forget(_ serverId: UInt32) {
        shown[serverId] = nil
        actionInvoked.remove(serverId)
        tokens[serverId] = nil
    }

    // MARK: - Internals

    /// Human reason for a failed delivery, for the `failed` history record.
    static func failureReason(_ error: BusError, timeout: UInt64) -> String {
        if error.isNoOwner { return "no notification server on the bus (\(error.name ?? ""))" }
        if error.isTimeout {
            return "notification server did not answer \(error.operation) within \(Double(timeout) / 1e6) s"
        }
        if error.isDisconnected { return "notification bus lost: \(error.detail)" }
        return "notification server unreachable: \(error)"
    }
    private func send(_ notification: DueNotification, capabilities: Set<String>, on bus: NotificationsBus)
        -> DeliveryResult {
        // A user's namespace on a bus of several users (`u1001:org.example.App`) is shown as its app.
        let presentation = appDirectory.presentation(for: AppNamespace.appID(of: notification.app)?.rawValue ?? notification.app)
        let request = NotifyRequest(notification: notification, capabilities: capabilities,
                                    replacesId: serverIds[Key(app: notification.app, id: notification.id)] ?? 0,
                                    configuration: configuration, presentation: presentation)
        let dropped = NotifyRequest.droppedButtons(notification, capabilities: capabilities, presentation: presentation)
        if notification.extras.alarm && !alarmLimitationsLogged {
            alarmLimitationsLogged = true
            let missing = AlarmPresentation.limitations(capabilities: capabilities)
            if !missing.isEmpty {
                onProblem?("the notification server \(serverOwner ?? "") cannot show alarms in full: "
                           + missing.joined(separator: "; ") + " (logged once per server)")
            }
        }
        if !dropped.isEmpty && !notification.extras.alarm {
            onProblem?("the notification server has no 'actions' capability: \(notification.id) [\(notification.app)] is shown "
                       + "without its buttons (\(dropped.joined(separator: ", "))); it cannot be opened, snoozed or "
                       + "answered from the notification")
        }
        let sentTo = generation
        do throws(BusError) {
            try bus.notify(request) { [weak self] result in self?.notifyAnswered(notification, result, sentTo: sentTo) }
            return .pending
        } catch {
            return .failed(reason: Self.failureReason(error, timeout: configuration.callTimeoutMicroseconds))
        }
    }

    private func notifyAnswered(_ notification: DueNotification,
                                _ result: Result<(id: UInt32, sender: String?), BusError>, sentTo: Int) {
        switch result {
        case .success(let (serverId, sender)):
            if sentTo == generation {
                if let sender, sender != serverOwner { adoptServer(sender) }
                let key = Key(app: notification.app, id: notification.id)
                if let old = serverIds[key], old != serverId { shown[old] = nil }
                serverIds[key] = serverId
                shown[serverId] = notification
                actionInvoked.remove(serverId)
                tokens[serverId] = nil
            }
            onDelivered?(notification)
        case .failure(let error):
            if error.isTimeout && sentTo == generation { openCircuit(error) }
            onDeliveryFailed?(notification, Self.failureReason(error, timeout: configuration.callTimeoutMicroseconds))
        }
    }

    private func requestCapabilities(on bus: NotificationsBus) throws(BusError) {
        let askedOf = generation
        try bus.getCapabilities { [weak self] result in self?.capabilitiesAnswered(result, askedOf: askedOf) }
        capabilitiesRequested = true
    }

    private func capabilitiesAnswered(_ result: Result<[String], BusError>, askedOf: Int) {
        guard askedOf == generation else {
            // The server changed meanwhile: ask the new one for the notifications still waiting.
            if !waitingForCapabilities.isEmpty && !capabilitiesRequested, let connection, connection.isOpen {
                do throws(BusError) { try requestCapabilities(on: connection) } catch { failWaiting(error) }
            }
            return
        }
        capabilitiesRequested = false
        switch result {
        case .success(let caps):
            let caps = Set(caps)
            capabilities = caps
            let waiting = waitingForCapabilities
            waitingForCapabilities.removeAll()
            guard let connection else { return failWaiting(waiting, reason: "notification bus lost") }
            for notification in waiting {
                if case .failed(let reason) = send(notification, capabilities: caps, on: connection) {
                    onDeliveryFailed?(notification, reason)
                }
            }
        case .failure(let error):
            if error.isTimeout { openCircuit(error) }
            failWaiting(error)
        }
    }

    private func failWaiting(_ error: BusError) {
        let waiting = waitingForCapabilities
        waitingForCapabilities.removeAll()
        failWaiting(waiting, reason: Self.failureReason(error, timeout: configuration.callTimeoutMicroseconds))
    }

    private func failWaiting(_ waiting: [DueNotification], reason: String) {
        for notification in waiting { onDeliveryFailed?(notification, reason) }
    }

    /// The server let a call time out: fail fast until it changes owner.
    private func openCircuit(_ error: BusError) {
        guard circuitReason == nil else { return }
        circuitReason = "notification server did not answer \(error.operation) within "
            + "\(Double(configuration.callTimeoutMicroseconds) / 1e6) s; not called again until it restarts"
        onProblem?("the notification server \(serverOwner ?? "") is not answering (\(error.operation) timed out): "
                   + "deliveries fail at once until org.freedesktop.Notifications changes owner")
    }


    private func makeConnection() throws(BusError) -> NotificationsBus {
        let bus = try NotificationsBus(address: address, callTimeoutMicroseconds: configuration.callTimeoutMicroseconds) {
            [weak self] signal in self?.handle(signal)
        }
        serverOwner = bus.serverOwner()
        return bus
    }

    /// The open connection, reconnecting once if the bus daemon hung up since the last call.
    private func connected() throws(BusError) -> NotificationsBus {
        if let connection, connection.isOpen { return connection }
        dropConnection()
        let bus = try makeConnection()
        if let attachedLoop { try bus.attach(to: attachedLoop) }
        connection = bus
        return bus
    }

    private func dropConnection() {
        let old = connection
        connection = nil
        forgetServer()
        old?.close()  // fails its calls in flight (onDeliveryFailed)
    }

    /// Arms the reconnect timer (only when attached to a loop; without one, `show` reconnects).
    private func scheduleReconnect() {
        guard let attachedLoop else { return }
        do throws(BusError) {
            if reconnectTimer == nil {
                reconnectTimer = try attachedLoop.addTimer(clock: .monotonic) { [weak self] in self?.reconnectNow() }
            }
            try reconnectTimer?.arm(afterMicroseconds: configuration.reconnectIntervalMicroseconds)
        } catch {
            onProblem?("cannot arm the notification bus's reconnect timer: \(error)")
        }
    }

    /// Timer callback (outside any bus dispatch, so the old connection may be freed here).
    private func reconnectNow() {
        guard !(connection?.isOpen ?? false) else { return }
        dropConnection()
        do throws(BusError) {
            let bus = try makeConnection()
            if let attachedLoop { try bus.attach(to: attachedLoop) }
            connection = bus
            if serverOwner != nil { onServerAppeared?() }
        } catch {
            scheduleReconnect()
        }
    }

    /// Forgets everything that belonged to the previous server instance (its circuit included).
    private func forgetServer() {
        // Alarms it still showed were dropped unanswered: they come back on the next server.
        droppedAlarms += shown.values.filter { $0.extras.alarm && !droppedAlarms.contains($0) }
            .sorted { ($0.due, $0.id) < ($1.due, $1.id) }
        alarmLimitationsLogged = false
        generation += 1
        capabilities = nil
        serverInformation = nil
        capabilitiesRequested = false
        circuitReason = nil
        serverOwner = nil
        serverIds.removeAll()
        shown.removeAll()
        actionInvoked.removeAll()
        tokens.removeAll()
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
            scheduleReconnect()
        case .nameOwnerChanged(_, let newOwner):
            // A new owner is a new server instance, unless a Notify reply already told us about it.
            if newOwner.isEmpty || newOwner != serverOwner {
                forgetServer()
                serverOwner = newOwner.isEmpty ? nil : newOwner
                if !waitingForCapabilities.isEmpty, let connection, connection.isOpen {
                    do throws(BusError) { try requestCapabilities(on: connection) } catch { failWaiting(error) }
                }
            }
            if !newOwner.isEmpty {
                describeServer()
                reshowDroppedAlarms()
                onServerAppeared?()
            }
        case .activationToken(let sender, let serverId, let token):
            guard isCurrentServer(sender), shown[serverId] != nil, !token.isEmpty else { return }
            tokens[serverId] = token
        case .actionInvoked(let sender, let serverId, let key):
            guard isCurrentServer(sender), let notification = shown[serverId] else { return }
            actionInvoked.insert(serverId)
            if notification.extras.alarm { alarmReshows.reset(Self.alarmKey(notification)) }
            if notification.extras.alarm && key == AlarmPresentation.dismissKey {
                // Answered: hidden, recorded as dismissed (the close that follows is ours, reason 3).
                serverIds[Key(app: notification.app, id: notification.id)] = nil
                forget(serverId)
                closeOnServer(serverId)
                onInteraction?(Interaction(app: notification.app, id: notification.id, event: .dismissed,
                                           reason: "action:\(key)"))
                return
            }
            if let seconds = NotifyRequest.snoozeSeconds(ofKey: key), notification.extras.snoozeSeconds.contains(seconds) {
                // Hide it; it comes back from the engine after `seconds`.
                serverIds[Key(app: notification.app, id: notification.id)] = nil
                forget(serverId)
                closeOnServer(serverId)
                onSnooze?(notification, seconds)
                return
            }
            open(notification, key: key, token: tokens.removeValue(forKey: serverId))
            if notification.extras.alarm {
                // Opened is an answer: a resident alarm would otherwise stay on screen, ringing.
                serverIds[Key(app: notification.app, id: notification.id)] = nil
                forget(serverId)
                closeOnServer(serverId)
            }
        case .notificationClosed(let sender, let serverId, let reason):
            guard isCurrentServer(sender), let notification = shown[serverId] else { return }
            serverIds[Key(app: notification.app, id: notification.id)] = nil
            let hadAction = actionInvoked.contains(serverId)
            forget(serverId)
            if reason == Self.closedReasonDismissed && !hadAction {
                if notification.extras.alarm { alarmReshows.reset(Self.alarmKey(notification)) }
                onInteraction?(Interaction(app: notification.app, id: notification.id, event: .dismissed, reason: nil))
            } else if notification.extras.alarm && !hadAction
                        && (reason == Self.closedReasonExpired || reason == Self.closedReasonUndefined) {
                reshowAlarm(notification, why: "the notification server closed it unanswered (reason \(reason))")
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
        activator.run(plan, app: app, on: connection?.connection) { [weak self] ran, ok in
            self?.onInteraction?(Interaction(app: app, id: id, event: .opened, reason: "action:\(key)", ran: ran, ok: ok))
        }
    }

    /// NotificationClosed reasons (spec 1.2): 1 expired, 2 dismissed by the user, 3 CloseNotification, 4 undefined.
    static let closedReasonDismissed: UInt32 = 2
    static let closedReasonExpired: UInt32 = 1
    static let closedReasonUndefined: UInt32 = 4

    // MARK: - Alarms shown again (CONTRACT §11)

    static func alarmKey(_ n: DueNotification) -> String { n.app + "\u{0}" + n.id }

    /// Shows `alarm` again, at once, unless it was shown again `AlarmReshow.maxReshows` times already
    /// (then it is left closed and the log says so once). A failure goes the usual way (`failed`, retried).
    private func reshowAlarm(_ alarm: DueNotification, why: String) {
        guard alarmReshows.allow(Self.alarmKey(alarm)) else {
            onProblem?("alarm \(alarm.id) [\(alarm.app)] was dropped unanswered \(AlarmReshow.maxReshows + 1) times: "
                       + "not shown again (\(why))")
            return
        }
        onProblem?("alarm \(alarm.id) [\(alarm.app)] shown again: \(why)")
        if case .failed(let reason) = show(alarm) { onDeliveryFailed?(alarm, reason) }
    }

    /// The alarms the previous server dropped when it went away, shown on the new one.
    private func reshowDroppedAlarms() {
        let alarms = droppedAlarms
        droppedAlarms.removeAll()
        for alarm in alarms { reshowAlarm(alarm, why: "the notification server restarted") }
    }

    /// Alarms waiting for a server to be shown again (the previous one went away with them).
    public var alarmsWaitingForServer: Int { droppedAlarms.count }

    private func isCurrentServer(_ sender: String) -> Bool { serverOwner == nil || sender == serverOwner }
}
