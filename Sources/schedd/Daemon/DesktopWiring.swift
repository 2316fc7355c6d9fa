import SchedCalendar
import ScheddBus
import ScheddDesktop
import Scheduler
import ScheddService

/// The desktop part: owns the wiring of the desktop notifier to the loop — what the person did with a
/// notification (recorded and announced), snoozes, late delivery outcomes and a notification server
/// that appears (handed to the delivery part).
enum DesktopWiring {
    static func attach(_ desktop: DesktopNotifier, loop: EventLoop, bus: BusConnection, engine: @escaping () -> Engine,
                       clock: ServiceClock, delivery: Delivery, announcer: AnnouncingNotifier,
                       subscriptions: SignalSubscriptions, logger: Logger) throws(CommandFailure) {
        do {
            try desktop.attach(to: loop)
        } catch {
            throw .failure("cannot attach the desktop notifier: \(error.description)")
        }
        desktop.outcomes.subscribe { outcome in
            switch outcome {
            case .interaction(let i): record(i, bus: bus, engine: engine, clock: clock, subscriptions: subscriptions, logger: logger)
            case .snooze(let notification, let seconds):
                do throws(EngineError) {
                    try engine().snooze(notification, seconds: seconds, now: clock.now)
                    logger.info("snoozed for \(seconds) s [\(notification.app)]", id: notification.id, run: notification.runId)
                } catch {
                    logger.error("recording snoozed failed: \(error.message)", id: notification.id)
                }
                delivery.settle()
            case .serverAppeared: delivery.retryWhenServerAppeared()
            case .delivered(let notification): announcer.announceShown(notification)
            case .deliveryFailed(let notification, let reason): delivery.deliveryFailedLater(notification, reason)
            case .problem(let line): logger.warning(line)
            }
        }
    }

    /// What the person did: recorded in history, logged, signalled.
    private static func record(_ i: DesktopNotifier.Interaction, bus: BusConnection, engine: () -> Engine, clock: ServiceClock,
                               subscriptions: SignalSubscriptions, logger: Logger) {
        do throws(EngineError) {
            try engine().recordInteraction(app: i.app, id: i.id, event: i.event, reason: i.reason, ran: i.ran,
                                           ok: i.ok, now: clock.now)
        } catch {
            logger.error("recording \(i.event.rawValue) failed: \(error.message)", id: i.id)
        }
        logger.info(i.event.rawValue + (i.reason.map { " (\($0))" } ?? "") + (i.ran.map { ", ran \($0)" } ?? "")
                    + (i.ok.map { $0 ? ": ok" : ": failed" } ?? "") + " [\(i.app)]", id: i.id, run: runId(of: i.id))
        switch i.event {
        case .opened:
            let action = i.reason.map { $0.hasPrefix("action:") ? String($0.dropFirst(7)) : $0 } ?? "default"
            bus.emitSchedulerSignal("NotificationOpened", strings: [i.id, action, i.app], app: i.app, to: subscriptions,
                                    log: { logger.warning($0) })
        case .dismissed:
            bus.emitSchedulerSignal("NotificationDismissed", strings: [i.id, i.app], app: i.app, to: subscriptions,
                                    log: { logger.warning($0) })
        default: break
        }
    }
}
