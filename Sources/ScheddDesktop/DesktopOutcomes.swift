import Scheduler

extension DesktopNotifier {
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
}

/// Everything a `DesktopNotifier` reports after the fact, as one value.
public enum DesktopOutcome: Sendable {
    /// The person opened or dismissed a notification (`DesktopNotifier.Interaction`).
    case interaction(DesktopNotifier.Interaction)
    /// A snooze button was pressed on `notification` (as shown): the daemon stores it for `seconds`.
    case snooze(DueNotification, seconds: Int64)
    /// The server confirmed a notification that `show` answered `.pending`.
    case delivered(DueNotification)
    /// A notification that `show` answered `.pending` could not be shown (the server's error, a timeout,
    /// the bus going away); `reason` is for history's `failed` record.
    case deliveryFailed(DueNotification, reason: String)
    /// A notification server took org.freedesktop.Notifications (first start or restart), or a bus with a
    /// server was reached again: the daemon retries failed deliveries (`Engine.retryFailed`).
    case serverAppeared
    /// A line for the log: something went wrong that the daemon cannot see otherwise (the circuit opened,
    /// the reconnect timer could not be armed, a server cannot show a notification's buttons or alarms in full).
    case problem(String)
}

/// The one outcome stream of a `DesktopNotifier`: every outcome goes to every subscriber, in the order
/// they subscribed, inside sd-bus dispatch (the loop or `process(waitingUpTo:)`), never inside
/// `show`/`close`. A subscriber may call back into the notifier.
///
/// Shape: a small publisher (not Sendable: one thread). The daemon subscribes once (DesktopWiring);
/// tests subscribe what they record. O(subscribers) per outcome.
public final class DesktopOutcomes {
    /// A subscription, for `cancel`.
    public struct Subscription: Hashable, Sendable { let number: Int }

    private var subscribers: [(number: Int, receive: (DesktopOutcome) -> Void)] = []
    private var next = 0

    init() {}

    /// Adds `receive` for every later outcome.
    @discardableResult
    public func subscribe(_ receive: @escaping (DesktopOutcome) -> Void) -> Subscription {
        next += 1
        subscribers.append((next, receive))
        return Subscription(number: next)
    }

    /// Removes a subscription (outcomes already being delivered still reach it).
    public func cancel(_ subscription: Subscription) {
        subscribers.removeAll { $0.number == subscription.number }
    }

    func emit(_ outcome: DesktopOutcome) {
        for subscriber in subscribers { subscriber.receive(outcome) }
    }
}
