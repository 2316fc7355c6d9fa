import SchedCalendar
import Scheduler

/// A timer that wakes the machine at a wall-clock instant (the daemon's CLOCK_REALTIME_ALARM timerfd,
/// `ScheddSystem.WakeAlarmTimer`; a recording double in tests).
public protocol WakeTimerSource: AnyObject {
    /// Arms (or re-arms) the timer for `instant`; throws a reason when the kernel refuses.
    func arm(at instant: Instant) throws(WakeTimerError)
    func disarm()
}

public struct WakeTimerError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Keeps the wake timer on the earliest pending `wake: true` schedule (CONTRACT §11 "Wake"): its due
/// minus `Engine.wakeLeadSeconds`, re-armed when the earliest changes (a wake push stored, a wake schedule
/// fired or cancelled) — checked after every settle of the delivery, and always before the machine sleeps.
/// The engine flags changes it sees (`wakeMayHaveChanged`); a cancel it cannot see cheaply is caught by
/// `rearm(force: true)` before sleep. One index seek per check (`earliestWake`).
///
/// Without a source (no capability, or the fake clock) it only says so in `SleepState.wakeTimer`.
public final class WakeArming {
    private let source: (any WakeTimerSource)?
    private let engine: () -> Engine
    private let state: SleepState
    private let log: ServiceLog
    /// The instant the timer is armed for, nil when disarmed.
    public private(set) var armedFor: Instant?
    /// The due of the wake schedule it is armed for.
    public private(set) var armedForDue: Instant?

    public init(source: (any WakeTimerSource)?, engine: @escaping () -> Engine, state: SleepState, log: ServiceLog) {
        self.source = source; self.engine = engine; self.state = state; self.log = log
        if source == nil, let reason = engine().wakeCapability.reason { state.wakeTimer = "unavailable: \(reason)" }
    }

    /// Re-reads the earliest wake schedule when the engine flagged a change (or `force`) and re-arms the
    /// timer when it moved. O(log n).
    public func rearm(force: Bool = false) {
        let engine = engine()
        guard force || engine.wakeMayHaveChanged else { return }
        engine.wakeMayHaveChanged = false
        let due: Instant?
        do {
            due = try engine.earliestWake()
        } catch {
            engine.wakeMayHaveChanged = true  // try again after the next settle
            return
        }
        guard let source else {
            if let reason = engine.wakeCapability.reason {
                state.wakeTimer = "unavailable: \(reason)" + (due.map { " (earliest wake schedule \($0.rfc3339))" } ?? "")
            }
            return
        }
        guard let due else {
            if armedFor != nil { source.disarm() }
            armedFor = nil; armedForDue = nil
            state.wakeTimer = "idle (no wake schedule)"
            return
        }
        let target = Engine.wakeInstant(forDue: due)
        guard target != armedFor else { return }
        do throws(WakeTimerError) {
            try source.arm(at: target)
            armedFor = target; armedForDue = due
            state.wakeTimer = "armed for \(target.rfc3339) (\(Engine.wakeLeadSeconds) s before \(due.rfc3339))"
            log.info("wake timer armed for \(target.rfc3339) (\(Engine.wakeLeadSeconds) s before \(due.rfc3339))")
        } catch {
            armedFor = nil; armedForDue = nil
            state.wakeTimer = "unavailable: \(error.description)"
            log.warning("cannot arm the wake timer: \(error.description)")
        }
    }
}
