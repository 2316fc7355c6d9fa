import Scheduler
import ScheddDesktop

/// `--notifier`: where due notifications go.
enum NotifierKind: String, Sendable, CaseIterable {
    /// org.freedesktop.Notifications on the session bus (or `--notify-bus`): ScheddDesktop's `DesktopNotifier`.
    case desktop
    /// One JSON line per shown notification on stdout.
    case stdout
    /// Nothing shown (history still records `fired`).
    case none
}

/// Prints one JSON line per shown notification on stdout (`--notifier stdout`), written at once
/// with one `write(2)` so a reading script sees each as it happens.
///
/// A printed line cannot be dismissed, so a shown notification counts as on screen until a cancel
/// closes it (then the cancel reports it `closed`); the ids of the last `remembered` shown ones are
/// kept (the oldest forgotten first), so memory stays bounded.
final class StdoutNotifier: Notifier {
    static let remembered = 10_000
    private var onScreen: Set<String> = []
    private var order: [String] = []

    func show(_ notification: DueNotification) -> DeliveryResult {
        Console.out(JSONValue(shown: notification).serialized())
        let key = Self.key(notification.app, notification.id)
        if onScreen.insert(key).inserted { order.append(key) }
        while onScreen.count > Self.remembered, !order.isEmpty { onScreen.remove(order.removeFirst()) }
        // `order` may hold ids closed since; drop them now and then, so it stays bounded too.
        if order.count > 2 * Self.remembered { order = order.filter(onScreen.contains) }
        return .shown
    }

    @discardableResult
    func close(app: String, id: String) -> Bool { onScreen.remove(Self.key(app, id)) != nil }

    /// The remembered key of a notification: app and id (NUL cannot occur in either).
    static func key(_ app: String, _ id: String) -> String { app + "\u{0}" + id }
}

/// Wraps the configured notifier: announces each shown notification on D-Bus
/// (`NotificationShown`) and logs it (ids only: titles and bodies stay private).
final class AnnouncingNotifier: Notifier {
    private let inner: any Notifier
    private let announce: (DueNotification) -> Void
    private let logger: Logger

    init(_ inner: any Notifier, logger: Logger, announce: @escaping (DueNotification) -> Void) {
        self.inner = inner; self.logger = logger; self.announce = announce
    }

    func show(_ notification: DueNotification) -> DeliveryResult {
        let result = inner.show(notification)
        switch result {
        case .shown: announceShown(notification)
        case .pending: break  // an asynchronous notifier confirms later: the daemon calls announceShown then
        case .failed(let reason): logFailure(notification, reason)
        }
        return result
    }

    /// Logs and announces (`NotificationShown`) a notification the notifier showed.
    func announceShown(_ notification: DueNotification) {
        logger.info("shown (due \(notification.due.rfc3339), late \(notification.lateSeconds)s)",
                    id: notification.id, run: notification.runId)
        announce(notification)
    }

    /// Logs a delivery that failed (history records it as `failed`).
    func logFailure(_ notification: DueNotification, _ reason: String) {
        logger.warning("delivery failed: \(reason)", id: notification.id, run: notification.runId)
    }

    @discardableResult
    func close(app: String, id: String) -> Bool { inner.close(app: app, id: id) }
}

/// The notifier `schedd run` uses, and the desktop notifier behind it when there is one (the daemon
/// attaches that to its loop and wires its interactions to the engine).
struct NotifierChoice {
    var notifier: any Notifier
    var desktop: DesktopNotifier?
    /// Which notifier and why, for the start-up log line (`notifier: stdout (no notification server on
    /// the session bus; --notifier desktop waits for one)`).
    var why: String
}

/// Builds the notifier for `kind`; nil (no `--notifier`) means desktop when the notification bus has a
/// notification server right now, stdout otherwise. `notifyBus` nil is the user's session bus. A
/// system daemon waits for a notification bus that is not up yet (a kiosk session starting later).
func makeNotifier(_ kind: NotifierKind?, notifyBus: String?, waitForBus: Bool) throws(CommandFailure) -> NotifierChoice {
    let bus = notifyBus.map { "the bus at \($0)" } ?? "the session bus"
    switch kind {
    case .stdout?: return NotifierChoice(notifier: StdoutNotifier(), why: "notifier: stdout (--notifier stdout)")
    case .none?: return NotifierChoice(notifier: NullNotifier(), why: "notifier: none (--notifier none): nothing is shown")
    case .desktop?:
        do {
            let desktop = try DesktopNotifier(address: notifyBus, waitForBus: waitForBus)
            return NotifierChoice(notifier: desktop, desktop: desktop,
                                  why: "notifier: desktop (--notifier desktop), org.freedesktop.Notifications on \(bus)")
        } catch {
            throw .failure("--notifier desktop: cannot reach the notification bus: \(error.description)")
        }
    case nil:
        if let desktop = try? DesktopNotifier(address: notifyBus), desktop.serverPresent {
            return NotifierChoice(notifier: desktop, desktop: desktop,
                                  why: "notifier: desktop (a notification server is on \(bus))")
        }
        return NotifierChoice(notifier: StdoutNotifier(),
                              why: "notifier: stdout (no notification server on \(bus); --notifier desktop waits for one)")
    }
}
