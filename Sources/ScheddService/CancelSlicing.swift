import SchedCalendar
import Scheduler

/// The sliced-cancellation part (docs/daemon-parts.md "Sliced cancellation"): runs the engine's
/// cancellation jobs — what a Track or CancelRun over many schedules left after its answer — one slice
/// (`Engine.cancelSliceSize` schedules, one transaction) at a time, so every other call is served between
/// slices. With the fair queue (`lanes`) the slices take turns in their job's app's lane, ahead of that
/// app's waiting calls, one call between two slices: an app's jobs keep pace with its own calls (and
/// its calls with its jobs) and never wait behind another app's flood, and an app that floods CancelRuns
/// does not pile jobs up (each of its listings pays for every job it has: in FairServiceTests, with
/// slices below every call, a flood's List took 0.8 s with 16 jobs under way). Without it, through its
/// `LoopWork` (`.cancelSlices`), below the bus, the group commit and the delivery in priority.
/// Started after every change (`kick`, from the delivery's settle) and at start (a job left by a killed
/// daemon resumes). One log line when a job is done.
public final class CancelSlicing {
    private let engine: () -> Engine
    private let clock: ServiceClock
    private let storage: StorageMonitor
    private let log: ServiceLog
    private var scheduled = false
    /// True while `continueSlicing` schedules the slice after the one it ran (one call of the app goes
    /// between them).
    private var slicedLast = false
    /// Set by `stop`: the daemon is ending.
    private var stopped = false
    /// What waits for the jobs to be done (`afterJobs`), in order.
    private var waitingForJobs: [() -> Void] = []
    /// Runs `continueSlicing` in a later loop iteration (no loop: every slice at once).
    private var work: LoopWork!
    /// The fair queue whose lanes the slices take turns in (nil: `work` alone).
    private let lanes: FairQueue?
    /// Where a slice's COMMIT is synced off the loop, as the group commit's (nil: each slice syncs itself).
    private let durability: SyncPipeline?

    /// `durability`: the group commit's sync pipeline. A slice then commits without syncing: nothing
    /// answers for it (its job's row is durable since the call that made the job was answered, and a
    /// slice lost to a power cut is done again from that row); a read of the app's own state waits for
    /// it (`SyncPipeline.whenDurable(app:)`), and the loop never waits for the disk on its behalf.
    ///
    /// `loop`: where the slices run (`.cancelSlices`) when `lanes` does not take them (nil: every slice at
    /// once); a refused slice stops slicing until the next change (and runs what waits for the jobs).
    public init(engine: @escaping () -> Engine, clock: ServiceClock, storage: StorageMonitor, log: ServiceLog,
                durability: SyncPipeline? = nil, lanes: FairQueue? = nil, loop: LoopScheduler? = nil) {
        self.engine = engine; self.clock = clock; self.storage = storage; self.log = log
        self.durability = durability
        self.lanes = lanes
        work = LoopWork(.cancelSlices, on: loop, whenRefused: { [unowned self] error in
            scheduled = false
            log.error("cannot schedule the next cancellation slice (\(error)): it runs at the next change")
            runWaiting()
        }) { [unowned self] in continueSlicing() }
    }

    /// Runs `action` once no cancellation job is under way: at once when none is, else after the slice
    /// that finishes the last one (other calls are served between the slices meanwhile). `ClockNext`
    /// waits so, so that it never stops at the due time of a schedule a job still covers (cancelled for
    /// every caller, but still in the wheel until its slice). When slicing stops early — a storage failure
    /// backed off, loop work the loop refused — the actions run then, and the jobs go on later.
    public func afterJobs(_ action: @escaping () -> Void) {
        guard !stopped, engine().hasCancelJobs else { return action() }
        waitingForJobs.append(action)
        if !scheduled { schedule() }
    }

    /// Shutdown (SIGTERM, before the fair queue drains): no more slices — a slice already queued in a lane
    /// does nothing — and what waits for the jobs runs now; the jobs go on at the next start, from their rows.
    public func stop() {
        stopped = true
        runWaiting()
    }

    /// Schedules the next slice when a job is under way and none is scheduled. O(1).
    public func kick() {
        guard !stopped, !scheduled, engine().hasCancelJobs else { return }
        schedule()
    }

    private func schedule() {
        if let lanes, lanes.takesTurns, let app = engine().nextCancelJobApp {
            scheduled = true
            lanes.enqueueAhead(lane: app, behind: slicedLast ? 1 : 0) { [self] in continueSlicing() }
            return
        }
        guard work.isLooped else {
            while slice() {}
            return runWaiting()
        }
        scheduled = true
        work.request()
    }

    private func runWaiting() {
        let actions = waitingForJobs
        waitingForJobs.removeAll()
        for action in actions { action() }
    }

    /// The slices' loop work (or lane turn): one slice, then the next one scheduled while a job remains.
    public func continueSlicing() {
        scheduled = false
        guard !stopped else { return }
        let more = slice()
        slicedLast = true
        defer { slicedLast = false }
        if more { schedule() } else { runWaiting() }
    }

    /// One slice; true when a job remains. While a storage failure is backed off, nothing (the next
    /// settle after the back-off starts again).
    private func slice() -> Bool {
        let now = clock.now
        guard storage.mayFire(at: now) else { return false }
        do throws(EngineError) {
            let engine = engine()
            guard let report = try sliceCommitted(engine, now: now) else { return false }
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

    /// One slice of the engine's, committed without a sync when a pipeline syncs for it.
    private func sliceCommitted(_ engine: Engine, now: Instant) throws(EngineError) -> Engine.CancelSliceReport? {
        guard let durability else { return try engine.cancelSlice(now: now) }
        var outcome: Result<Engine.CancelSliceReport?, EngineError> = .success(nil)
        let commit = durability.commitWithoutSync {
            do throws(EngineError) { outcome = .success(try engine.cancelSlice(now: now)) } catch { outcome = .failure(error) }
        }
        let report = try outcome.get()
        if let commit, let report {
            durability.record(commit, app: report.app)
            durability.whenDurable(through: commit) { _ in }  // starts the sync; nothing answers for a slice
        }
        return report
    }
}
