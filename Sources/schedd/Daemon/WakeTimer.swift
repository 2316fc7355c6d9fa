import ScheddBus
import ScheddDesktop
import ScheddService
import ScheddSystem
import SchedCalendar
import Scheduler

/// The daemon's wake timer: ScheddSystem's CLOCK_REALTIME_ALARM timerfd as the service's `WakeTimerSource`.
/// Its expiry only wakes the loop (the due timer, armed 30 s later, delivers); reading it consumes it.
final class DaemonWakeTimer: WakeTimerSource {
    private let timer: WakeAlarmTimer

    init(loop: EventLoop) throws(CommandFailure) {
        do {
            timer = try WakeAlarmTimer()
        } catch {
            throw .failure(error.description)
        }
        let timer = self.timer
        do {
            try loop.addReadable(fd: timer.fd) { timer.read() }
        } catch {
            throw .failure("cannot watch the wake timer: \(error.description)")
        }
    }

    func arm(at instant: Instant) throws(WakeTimerError) {
        do { try timer.arm(atRealtimeMicroseconds: instant.microseconds) } catch { throw WakeTimerError(error.description) }
    }

    func disarm() { try? timer.disarm() }
}

extension Daemon {
    /// Finds out whether the machine can be woken (CONTRACT §11 "Wake") and makes the wake-arming part on
    /// the wake timer when it can (nil source: it only says why not). Returns it, with the line that says
    /// so, logged once when serving starts (`startSleepAndWake`).
    static func makeWakeArming(loop: EventLoop, fakeClock: Bool, engine: @escaping () -> Engine, state: SleepState,
                               logger: Logger) -> (arming: WakeArming, line: String) {
        var reason = WakeAlarmSupport.probe(rtcDirectory: environment("SCHEDD_RTC_DIRECTORY") ?? "/sys/class/rtc")
        if reason == nil && fakeClock { reason = "the daemon runs on a fake clock (--fake-clock)" }
        var source: (any WakeTimerSource)?
        if reason == nil {
            do { source = try DaemonWakeTimer(loop: loop) } catch { reason = error.message }
        }
        engine().wakeCapability = reason.map(WakeCapability.unavailable) ?? .armed
        let line = reason.map { "wake timers unavailable: \($0); wake: true schedules will not wake the machine" }
            ?? "wake timers available (CLOCK_REALTIME_ALARM)"
        return (WakeArming(source: source, engine: engine, state: state, log: logger), line)
    }

    /// Says whether wake timers work (made in `init`: `makeWakeArming`) and starts watching sleep and resume.
    func startSleepAndWake() {
        logger.info(wakeLine)
        sleepWatch.start(loop: loop)
        desktop?.describeServer()
    }

    /// `SleepWatch`'s `beforeSleep`: commits every write waiting and the catch-up under way (at most 1000
    /// slices), arms the wake timer whatever the engine flagged, and flushes the answers to the bus.
    static func settleBeforeSleep(groupCommit: GroupCommit, delivery: Delivery, wakeArming: WakeArming, bus: BusConnection) {
        groupCommit.flush()
        var slices = 0
        while delivery.isDelivering && slices < 1000 {  // the catch-up under way, committed before sleeping
            delivery.continueDelivery()
            slices += 1
        }
        wakeArming.rearm(force: true)
        bus.flush()
    }
}
