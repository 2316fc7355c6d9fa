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
//     try notifier.attach(to: event)                                   // sd_bus_attach_event
//     notifier.onInteraction = { i in                                  // .opened "action:KEY" / .dismissed
//         try? engine.recordInteraction(app: i.app, id: i.id, event: i.event, reason: i.reason,
//                                       ran: i.ran, ok: i.ok, now: clock.now)
//         service.emitSignal(i.event, i.id, i.reason, i.app)           // schedd's own D-Bus signals
//     }
//     notifier.onSnooze = { notification, seconds in try? engine.snooze(notification, seconds: seconds, now: …) }
//     notifier.onServerAppeared = { _ = try? engine.retryFailed(now: clock.now) }
//     engine = try Engine(databasePath: …, notifier: notifier, …)
//
// - `show` blocks the loop for at most `Configuration.callTimeoutMicroseconds` (2 s) per call
//   (GetCapabilities once per server, then Notify) and never throws: no server, a timeout or a lost bus
//   become `.failed(reason:)`, which the engine records as `failed` and retries on `onServerAppeared`.
// - The callbacks run inside sd-bus dispatch (sd-event or `process(waitingUpTo:)`); they may call back
//   into `show`/`close` (re-entrant synchronous calls are allowed by sd-bus).
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
/// | `NotificationClosed(id, 1)` expired | nothing: the person did nothing with it (the id is forgotten) |
/// | `NotificationClosed(id, 3)` closed by CloseNotification | nothing: schedd (a cancel) closed it |
/// | `NotificationClosed(id, 4)` undefined | nothing |
public final class DesktopNotifier: Notifier {
    /// Fixed choices of the Notify call; the defaults are what schedd uses.
    public struct Configuration: Sendable, Hashable {
        public var expireTimeouts = ExpireTimeouts()
        /// Upper bound of each blocking call to the server (sd_bus_call's usec): 2 s.
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

    public let configuration: Configuration
    /// The D-Bus address given at init; nil = the user's session bus.
    public let address: String?

    /// The server's capabilities, nil until read (or after the server changed).
    public private(set) var capabilities: Set<String>?

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

    /// Lets the daemon's event loop drive this connection's signals and the reconnect timer. Survives
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

    /// Notify, replacing the same schedule's notification when still on screen. O(1) bus round trips:
    /// GetCapabilities (first time per server) + Notify, each bounded by the call timeout.
    public func show(_ notification: DueNotification) -> DeliveryResult {
        do throws(BusError) {
            let bus = try connected()
            let caps: Set<String>
            if let cached = capabilities {
                caps = cached
            } else {
                caps = Set(try bus.getCapabilities())
                capabilities = caps
            }
            let key = Key(app: notification.app, id: notification.id)
            let request = NotifyRequest(notification: notification, capabilities: caps,
                                        replacesId: serverIds[key] ?? 0, configuration: configuration,
                                        presentation: appDirectory.presentation(for: notification.app))
            let (serverId, sender) = try bus.notify(request)
            if let sender, sender != serverOwner { adoptServer(sender) }
            if let old = serverIds[key], old != serverId { shown[old] = nil }
            serverIds[key] = serverId
            shown[serverId] = notification
            actionInvoked.remove(serverId)
            tokens[serverId] = nil
            return .shown
        } catch {
            if !(connection?.isOpen ?? false) {
                dropConnection()
                scheduleReconnect()
            }
            return .failed(reason: Self.failureReason(error, timeout: configuration.callTimeoutMicroseconds))
        }
    }

    /// CloseNotification for schedule `id` if its notification is on screen; otherwise nothing.
    /// A failure is ignored: a server that went away took its notifications with it.
    /// Closes the notification of schedule `id` of `app` when the server still shows it (it has not sent
    /// `NotificationClosed` for it); returns whether it did.
    @discardableResult
    public func close(app: String, id: String) -> Bool {
        guard let serverId = serverIds.removeValue(forKey: Key(app: app, id: id)) else { return false }
        forget(serverId)
        try? connection?.closeNotification(serverId)
        return true
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
        return "notification server unreachable: \(error)"
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
        connection?.close()
        connection = nil
        forgetServer()
    }

    /// Arms the reconnect timer (only when attached to a loop; without one, `show` reconnects).
    private func scheduleReconnect() {
        guard let attachedLoop else { return }
        if reconnectTimer == nil {
            reconnectTimer = try? attachedLoop.addTimer(clock: .monotonic) { [weak self] in self?.reconnectNow() }
        }
        try? reconnectTimer?.arm(afterMicroseconds: configuration.reconnectIntervalMicroseconds)
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

    /// Forgets everything that belonged to the previous server instance.
    private func forgetServer() {
        capabilities = nil
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
            scheduleReconnect()
        case .nameOwnerChanged(_, let newOwner):
            // A new owner is a new server instance, unless a Notify reply already told us about it.
            if newOwner.isEmpty || newOwner != serverOwner {
                forgetServer()
                serverOwner = newOwner.isEmpty ? nil : newOwner
            }
            if !newOwner.isEmpty { onServerAppeared?() }
        case .activationToken(let sender, let serverId, let token):
            guard isCurrentServer(sender), shown[serverId] != nil, !token.isEmpty else { return }
            tokens[serverId] = token
        case .actionInvoked(let sender, let serverId, let key):
            guard isCurrentServer(sender), let notification = shown[serverId] else { return }
            actionInvoked.insert(serverId)
            if let seconds = NotifyRequest.snoozeSeconds(ofKey: key), notification.extras.snoozeSeconds.contains(seconds) {
                // Hide it; it comes back from the engine after `seconds`.
                serverIds[Key(app: notification.app, id: notification.id)] = nil
                forget(serverId)
                try? connection?.closeNotification(serverId)
                onSnooze?(notification, seconds)
                return
            }
            open(notification, key: key, token: tokens.removeValue(forKey: serverId))
        case .notificationClosed(let sender, let serverId, let reason):
            guard isCurrentServer(sender), let notification = shown[serverId] else { return }
            serverIds[Key(app: notification.app, id: notification.id)] = nil
            let hadAction = actionInvoked.contains(serverId)
            forget(serverId)
            if reason == Self.closedReasonDismissed && !hadAction {
                onInteraction?(Interaction(app: notification.app, id: notification.id, event: .dismissed, reason: nil))
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
            plan = .nothing(reason: "\(notification.app) is not a valid app id")
        }
        let app = notification.app, id = notification.id
        activator.run(plan, on: connection?.connection) { [weak self] ran, ok in
            self?.onInteraction?(Interaction(app: app, id: id, event: .opened, reason: "action:\(key)", ran: ran, ok: ok))
        }
    }

    /// NotificationClosed reasons (spec 1.2): 1 expired, 2 dismissed by the user, 3 CloseNotification, 4 undefined.
    static let closedReasonDismissed: UInt32 = 2

    private func isCurrentServer(_ sender: String) -> Bool { serverOwner == nil || sender == serverOwner }
}
