import Scheduler
import ScheddBus
import ScheddService

/// The announcements part: owns what the daemon tells the log and the bus about cancellations, once
/// they are durable (`NotificationCancelled`, with the reason and the app, to the app's subscribers). Bounded: one log line per
/// call however many ids it cancelled, and the journal's SCHEDD_ID only when it was one.
final class Announcements: CancelAnnouncer {
    private let bus: BusConnection
    private let logger: Logger
    private let subscriptions: SignalSubscriptions

    init(bus: BusConnection, logger: Logger, subscriptions: SignalSubscriptions) {
        self.bus = bus; self.logger = logger; self.subscriptions = subscriptions
    }

    func announceCancelled(_ ids: [String], reason: String, app: String) {
        for id in ids {
            logger.info("cancelled (\(reason)) [\(app)]", id: id, run: runId(of: id))
            bus.emitSchedulerSignal("NotificationCancelled", strings: [id, reason, app], app: app, to: subscriptions,
                                    log: { [logger] in logger.warning($0) })
        }
    }
}

extension Logger: ServiceLog {
    func write(_ level: ServiceLogLevel, _ message: String, id: String?, run: String?) {
        switch level {
        case .info: log(.info, message, id: id, run: run)
        case .warning: log(.warning, message, id: id, run: run)
        case .error: log(.error, message, id: id, run: run)
        }
    }
}
