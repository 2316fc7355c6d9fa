import SchedCalendar
import Scheduler

/// The sliced-cancellation part (docs/daemon-parts.md "Sliced cancellation"): runs the engine's
/// cancellation jobs — what a Track or CancelRun over many schedules left after its answer — one slice
/// (`Engine.cancelSliceSize` schedules, one transaction) per loop iteration through `trigger`, below the
/// bus, the group commit and the delivery in priority, so every other call is served between slices.
/// Started after every change (`kick`, from the delivery's settle) and at start (a job left by a killed
/// daemon resumes). One log line when a job is done.
public final class CancelSlicing {
    private let engine: () -> Engine
    private let clock: ServiceClock
    private let storage: StorageMonitor
    private let log: ServiceLog
    private var scheduled = false
    /// What waits for the jobs to be done (`afterJobs`), in order.
    private var waitingForJobs: [() -> Void] = []
    /// Runs `continueSlicing` in a later loop iteration (set by the wiring; nil: every slice at once).
    public var trigger: LoopTrigger?

    public init(engine: @escaping () -> Engine, clock: ServiceClock, storage: StorageMonitor, log: ServiceLog) {
        self.engine = engine; self.clock = clock; self.storage = storage; self.log = log
    }

    /// Runs `action` once no cancellation job is under way: at once when none is, else after the slice
    /// that finishes the last one (other calls are served between the slices meanwhile). `ClockNext`
    /// waits so, so that it never stops at the due time of a schedule a job still covers (cancelled for
    /// every caller, but still in the wheel until its slice). When slicing stops early — a storage failure
    /// backed off, a trigger the loop refused — the actions run then, and the jobs go on later.
    public func afterJobs(_ action: @escaping () -> Void) {
        guard engine().hasCancelJobs else { return action() }
        waitingForJobs.append(action)
        if !scheduled { schedule() }
    }

    /// Schedules the next slice when a job is under way and none is scheduled. O(1).
    public func kick() {
        guard !scheduled, engine().hasCancelJobs else { return }
        schedule()
    }

    private func schedule() {
        guard let trigger else {
            while slice() {}
            return runWaiting()
        }
        scheduled = true
        do throws(LoopTriggerError) {
            try trigger.trigger()
        } catch {
            scheduled = false
            log.error("cannot schedule the next cancellation slice (\(error)): it runs at the next change")
            runWaiting()
        }
    }

    private func runWaiting() {
        let actions = waitingForJobs
        waitingForJobs.removeAll()
        for action in actions { action() }
    }

    /// `trigger`'s action: one slice, then the next one scheduled while a job remains.
    public func continueSlicing() {
        scheduled = false
        if slice() { schedule() } else { runWaiting() }
    }

    /// One slice; true when a job remains. While a storage failure is backed off, nothing (the next
    /// settle after the back-off starts again).
    private func slice() -> Bool {
        let now = clock.now
        guard storage.mayFire(at: now) else { return false }
        do throws(EngineError) {
            let engine = engine()
            guard let report = try engine.cancelSlice(now: now) else { return false }
            storage.succeeded()
            if report.finished {
                log.info("cancellation (\(report.reason)) [\(report.app)] done: every schedule it covered is cancelled")
            }
            return engine.hasCancelJobs
        } catch {
            storage.failed("cancelling in slices", ServiceFailure(error), backOff: true)
            return false
        }
    }
}
