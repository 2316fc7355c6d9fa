import SchedCalendar
import Synchronization

/// A notification that is due and about to be shown.
public struct DueNotification: Sendable, Hashable {
    /// The app it belongs to (CONTRACT §8): shown as that app, opening it opens that app.
    public var app: String
    public var id: String
    public var runId: String
    public var title: String
    public var body: String?
    public var urgency: Urgency
    public var icon: String?
    public var category: String?
    public var actions: [NotificationAction]
    public var dataJSON: String?
    public var messageId: String?
    /// The instant it was due.
    public var due: Instant
    /// The instant it is shown.
    public var at: Instant
    /// Seconds late (0 when on time).
    public var lateSeconds: Double
    /// The schedule's `graceSeconds` (nil: the daemon's default): how long a failed delivery stays worth
    /// retrying (`Engine.deliveryFailed`).
    public var graceSeconds: Int64?
    /// `bk.deepLink`, `bk.action`, `bk.image`, `snoozeSeconds`.
    public var extras = NotificationExtras()

    public init(app: String, id: String, runId: String, title: String, body: String?, urgency: Urgency, icon: String?,
                category: String?, actions: [NotificationAction], dataJSON: String?, messageId: String?,
                due: Instant, at: Instant, lateSeconds: Double, graceSeconds: Int64? = nil) {
        self.app = app; self.id = id; self.runId = runId; self.title = title; self.body = body; self.urgency = urgency
        self.icon = icon; self.category = category; self.actions = actions; self.dataJSON = dataJSON
        self.messageId = messageId; self.due = due; self.at = at; self.lateSeconds = lateSeconds
        self.graceSeconds = graceSeconds
    }
}

/// The outcome of handing a notification to the notifier.
public enum DeliveryResult: Sendable, Hashable {
    case shown
    /// Handed to an asynchronous notifier (a D-Bus call on its way): the outcome comes later — a failure
    /// through `Engine.deliveryFailed`; the event loop never waits for it.
    case pending
    /// The notification server could not be reached; `reason` says why. The engine records `failed`
    /// and retries when `Engine.retryFailed` is called (a server appeared).
    case failed(reason: String)
}

/// Where due notifications go: the desktop (D-Bus), stdout lines, nowhere, or a recording for tests.
/// Called on the engine's thread, in due order. `show` must not wait on another process: a notifier that
/// talks to one answers `.pending` and reports a late failure through `Engine.deliveryFailed`.
public protocol Notifier: AnyObject {
    func show(_ notification: DueNotification) -> DeliveryResult
    /// A schedule of `app` whose notification may be on screen was cancelled: close it if it is. Returns
    /// whether it was on screen (then the engine records history `closed` and the cancel says so).
    @discardableResult
    func close(app: String, id: String) -> Bool
}

/// A notifier that shows nothing and remembers everything (tests).
public final class RecordingNotifier: Notifier {
    public private(set) var shown: [DueNotification] = []
    public private(set) var closed: [String] = []
    /// When set, `show` fails with this reason instead of recording.
    public var failure: String?
    public init() {}
    public func show(_ notification: DueNotification) -> DeliveryResult {
        if let failure { return .failed(reason: failure) }
        shown.append(notification)
        return .shown
    }
    /// On screen: shown and not closed since (a recording has no person to dismiss it). `closed` holds
    /// the ids in order, `closedApps` the app of each.
    @discardableResult
    public func close(app: String, id: String) -> Bool {
        // By bytes (`sameName`), as the store and the desktop notifier's on-screen map tell ids apart.
        let wasShown = shown.contains { sameName($0.app, app) && sameName($0.id, id) }
            && !zip(closed, closedApps).contains { sameName($0.0, id) && sameName($0.1, app) }
        closed.append(id)
        closedApps.append(app)
        return wasShown
    }
    public private(set) var closedApps: [String] = []
}

/// A notifier that shows nothing (`--notifier none`).
public final class NullNotifier: Notifier {
    public init() {}
    public func show(_ notification: DueNotification) -> DeliveryResult { .shown }
    @discardableResult
    public func close(app: String, id: String) -> Bool { false }
}
