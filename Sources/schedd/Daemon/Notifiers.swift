import Scheduler

/// `--notifier`: where due notifications go. `desktop` (the freedesktop Notify client) plugs in here.
enum NotifierKind: String, Sendable, CaseIterable {
    case stdout, none
}

/// Prints one JSON line per shown notification on stdout (`--notifier stdout`), written at once
/// with one `write(2)` so a reading script sees each as it happens.
final class StdoutNotifier: Notifier {
    func show(_ notification: DueNotification) -> DeliveryResult {
        Console.out(JSONValue(shown: notification).serialized())
        return .shown
    }
    func close(id: String) {}
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
        case .shown:
            logger.info("shown (due \(notification.due.rfc3339), late \(notification.lateSeconds)s)",
                        id: notification.id, run: notification.runId)
            announce(notification)
        case .failed(let reason):
            logger.warning("delivery failed: \(reason)", id: notification.id, run: notification.runId)
        }
        return result
    }

    func close(id: String) { inner.close(id: id) }
}

/// Builds the notifier for `kind`. The desktop notifier (next issue) will take the daemon's bus
/// connection and event loop from here to talk to org.freedesktop.Notifications.
func makeNotifier(_ kind: NotifierKind) -> any Notifier {
    switch kind {
    case .stdout: StdoutNotifier()
    case .none: NullNotifier()
    }
}
