import SchedCalendar
import Synchronization

/// A notification that is due and about to be shown.
public struct DueNotification: Sendable, Hashable {
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

    public init(id: String, runId: String, title: String, body: String?, urgency: Urgency, icon: String?,
                category: String?, actions: [NotificationAction], dataJSON: String?, messageId: String?,
                due: Instant, at: Instant, lateSeconds: Double, graceSeconds: Int64? = nil) {
        self.id = id; self.runId = runId; self.title = title; self.body = body; self.urgency = urgency
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
    /// A schedule whose notification may be on screen was cancelled: close it if it is. Returns
    /// whether it was on screen (then the engine records history `closed` and the cancel says so).
    @discardableResult
    func close(id: String) -> Bool
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
    /// On screen: shown and not closed since (a recording has no person to dismiss it).
    @discardableResult
    public func close(id: String) -> Bool {
        let wasShown = shown.contains { $0.id == id } && !closed.contains(id)
        closed.append(id)
        return wasShown
    }
}

/// A notifier that shows nothing (`--notifier none`).
public final class NullNotifier: Notifier {
    public init() {}
    public func show(_ notification: DueNotification) -> DeliveryResult { .shown }
    @discardableResult
    public func close(id: String) -> Bool { false }
}
