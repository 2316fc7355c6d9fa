import SchedCalendar
import ScheddBus
import ScheddService

/// The parts' `LoopScheduler`: each piece of loop work an sd-event defer source at its `LoopPriority`
/// (below the bus, 0), and each part's wall-clock timer (`timer`) an sd-event `CLOCK_REALTIME` timer
/// source. A source sd-event cannot make is kept in `failure`, and the daemon does not start.
final class LoopSources: LoopScheduler {
    private let loop: EventLoop
    private(set) var failure: String?

    init(loop: EventLoop) { self.loop = loop }

    func source(_ priority: LoopPriority, _ action: @escaping () -> Void) -> LoopTrigger? {
        do throws(BusError) {
            return EventLoopTrigger(try loop.addTrigger(priority: priority.rawValue, action))
        } catch {
            failure = failure ?? "\(priority): \(error)"
            return nil
        }
    }

    /// A `CLOCK_REALTIME` timer that runs `action` when it expires, made off (a `LoopTimerMaker`: the
    /// delivery's due timer). Nil when sd-event refuses it (kept in `failure`).
    func timer(_ action: @escaping () -> Void) -> LoopTimer? {
        do throws(BusError) {
            return EventLoopTimer(try loop.addTimer(clock: .realtime, action))
        } catch {
            failure = failure ?? "a realtime timer: \(error)"
            return nil
        }
    }
}

/// An sd-event defer source as the service parts' `LoopTrigger`.
final class EventLoopTrigger: LoopTrigger {
    private let source: EventTrigger
    init(_ source: EventTrigger) { self.source = source }
    func trigger() throws(LoopTriggerError) {
        do { try source.trigger() } catch { throw LoopTriggerError(error.description) }
    }
}

/// An sd-event `CLOCK_REALTIME` timer as a part's `LoopTimer`: armed at the instant's microseconds since
/// the epoch (at least 1; an instant before the epoch expires at once), off when nil.
final class EventLoopTimer: LoopTimer {
    private let timer: EventTimer
    init(_ timer: EventTimer) { self.timer = timer }
    func arm(at instant: Instant?) throws(LoopTriggerError) {
        do throws(BusError) {
            if let instant {
                try timer.arm(atMicroseconds: UInt64(max(1, instant.microseconds)))
            } else {
                try timer.disarm()
            }
        } catch {
            throw LoopTriggerError(error.description)
        }
    }
}
