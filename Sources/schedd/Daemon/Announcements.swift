import Scheduler
import ScheddBus
import ScheddService

/// The announcements part: owns what the daemon tells the log and the bus about cancellations, once
/// they are durable. Bounded however many ids one call cancelled (CONTRACT §9; issue 20 item 3): ONE
/// log line per call (with the id in the journal's SCHEDD_ID when it was one), and a
/// `NotificationCancelled(id, reason, app)` signal to the app's subscribers for each of the first
/// `maxSignalsPerCall` ids, in due order; the log line says when ids went unsignalled (a client that
/// must know them all lists the history, reason `event:NAME`/`run`/`cli`).
final class Announcements: CancelAnnouncer {
    /// Signals per call at most: as many ids as one reply lists.
    static let maxSignalsPerCall = ReplyBounds.maxRows
    private let bus: BusConnection
    private let logger: Logger
    private let subscriptions: SignalSubscriptions

    init(bus: BusConnection, logger: Logger, subscriptions: SignalSubscriptions) {
        self.bus = bus; self.logger = logger; self.subscriptions = subscriptions
    }

    func announceCancelled(_ ids: [String], reason: String, app: String) {
        announceCancelled(ids, unlisted: 0, reason: reason, app: app)
    }

    /// `unlisted`: cancelled by a cancellation job in slices after this (counted in the line, not signalled).
    func announceCancelled(_ ids: [String], unlisted: Int, reason: String, app: String) {
        guard let first = ids.first else { return }
        if ids.count == 1 && unlisted == 0 {
            logger.info("cancelled (\(reason)) [\(app)]", id: first, run: runId(of: first))
        } else {
            let unsignalled = max(0, ids.count - Self.maxSignalsPerCall) + unlisted
            logger.info("cancelled \(ids.count + unlisted) schedules (\(reason)) [\(app)], first \(first)"
                        + (unsignalled > 0 ? "; signalled the first \(min(ids.count, Self.maxSignalsPerCall)), not \(unsignalled) more" : "")
                        + (unlisted > 0 ? "; \(unlisted) of them are cancelled in slices after this answer" : ""))
        }
        for id in ids.prefix(Self.maxSignalsPerCall) {
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
