import SchedCalendar
import Scheduler

/// The delivery part (docs/faults.md): owns delivering what is due — in bounded slices — the due
/// timer (made in `init` from the loop's `LoopTimerMaker`, armed after every settle), the idle
/// maintenance step, and the notifier's late answers. What it tells the parts around it is its
/// `Events`, given in `init` (issue 32 item 4).
///
/// The loop never waits on another process and never works for long without coming back to the bus:
/// - due entries are decided and handed over `batchesPerSlice` batches (of `Engine.firingBatchSize`)
///   per loop iteration; a `LoopWork` (`.delivery`, below the bus and the group commit) goes on in
///   the next iteration, so calls, bus traffic and the watchdog interleave with a long catch-up;
/// - `ClockAdvance`/`ClockSet` are answered once the whole delivery they started is done
///   (`replyAfterDelivery`), other calls at once;
/// - an asynchronous notifier's failures arrive later (`deliveryFailedLater`) and are recorded from a
///   loop callback of their own (`.lateFailures`), never from inside another engine call.
/// While storage fails, firings wait for the storage part's back-off instead of retrying at once.
public final class Delivery {
    /// Batches per slice: one transaction (at most `Engine.firingBatchSize` decisions) per iteration.
    public static let batchesPerSlice = 1
    /// How late the due timer may wake and still count as on time: the loop's dispatch latency (about
    /// a millisecond here), far below any grace. A later wake means the process was stopped or
    /// starved, and is judged late like a clock jump (suspend/resume is reported as a clock change).
    public static let timerLatencyToleranceMicroseconds: Int64 = 1_000_000

    private let engine: () -> Engine
    private let clock: ServiceClock
    private let storage: StorageMonitor
    private let log: ServiceLog
    /// The mode of the delivery under way (nil: none).
    private var mode: AdvanceMode?
    /// Clock calls answered once the delivery under way is done.
    private var repliesAfterDelivery: [(reply: CallReply, answer: () -> CallAnswer)] = []
    /// Late answers of the notifier, recorded by `failureWork`.
    private var lateFailures: [(DueNotification, String)] = []
    private var retryWanted = false

    /// Runs `continueDelivery` in a later loop iteration (no loop: the remaining slices at once).
    private var continueWork: LoopWork!
    /// Runs `recordLateFailures` in a loop callback of its own (no loop: at once).
    private var failureWork: LoopWork!
    /// The due timer, made in `init` from the maker given and armed by `settle` alone; nil on a fake
    /// clock, which wakes no timer (its methods deliver instead).
    private var dueTimer: LoopTimer?
    /// What the delivery tells the parts around it (`Events`), given in `init`.
    private let events: Events

    /// `loop`: where the delivery's slices (`.delivery`) and the late failures (`.lateFailures`) run; nil:
    /// at once. A refused slice ends the daemon (`events.fatal`): due notifications would stay undelivered;
    /// a refused recording records at once.
    /// `dueTimer`: makes the due timer, whose expiry calls `dueTimerFired` (nil: no timer, a fake clock).
    /// `events`: what the delivery tells the parts around it, in the order `Events` states.
    public init(engine: @escaping () -> Engine, clock: ServiceClock, storage: StorageMonitor, log: ServiceLog,
                loop: LoopScheduler? = nil, dueTimer: LoopTimerMaker? = nil, events: Events = Events()) {
        self.engine = engine; self.clock = clock; self.storage = storage; self.log = log; self.events = events
        continueWork = LoopWork(.delivery, on: loop, whenRefused: { [unowned self] error in
            self.events.fatal("cannot schedule the next delivery slice (\(error)): due notifications would stay undelivered")
        }) { [unowned self] in continueDelivery() }
        failureWork = LoopWork(.lateFailures, on: loop, whenRefused: { [unowned self] error in
            log.error("cannot schedule recording failed deliveries (\(error)): recording at once")
            recordLateFailures()
        }) { [unowned self] in recordLateFailures() }
        self.dueTimer = dueTimer?({ [unowned self] in dueTimerFired() })
    }

    /// True while a sliced delivery is under way.
    public var isDelivering: Bool { mode != nil }

    /// Delivers whatever is due by the clock (late or missed per CONTRACT §3 when the clock jumped or
    /// the daemon was down), then sleeps until the next due instant. Called after every change.
    /// While a sliced delivery is under way, it settles when done.
    public func settle() {
        guard mode == nil else { return }
        let now = clock.now
        if let due = engine().nextDue, due <= now { deliverDue(now: now, mode: .wallClock) }
        guard mode == nil else { return }
        maintainWhenIdle(now: now)
        armDueTimer(at: storage.wakeUp(nextDue: engine().nextDue))
        events.settled()
    }

    /// Sets the due timer to `instant` (off when nil). A timer the loop refuses to arm would never fire:
    /// that ends the daemon (`events.fatal`), like any other broken loop source.
    private func armDueTimer(at instant: Instant?) {
        guard let dueTimer else { return }
        do throws(LoopTriggerError) {
            try dueTimer.arm(at: instant)
        } catch {
            events.fatal("cannot arm the due timer (\(error)): due notifications would not fire")
        }
    }

    /// The due timer fired: time passed normally, so what is due fires on time (history `late` 0),
    /// unless the wake-up came implausibly late.
    public func dueTimerFired() {
        guard mode == nil else { return }
        let now = clock.now
        if let due = engine().nextDue, due <= now, now.microseconds - due.microseconds < Self.timerLatencyToleranceMicroseconds {
            deliverDue(now: now, mode: .timePassing)
        }
        settle()
    }

    /// The wall clock stepped: what it jumped over is judged late (CONTRACT §3).
    public func wallClockChanged() {
        deliverDue(now: clock.now, mode: .wallClock)
        settle()
    }

    /// Delivers what is due at `now` (in `mode`) unless a storage failure is being backed off.
    public func deliverDue(now: Instant, mode: AdvanceMode) {
        guard storage.mayFire(at: now) else { return }
        events.delivering()
        do throws(EngineError) {
            try startSlicedDelivery(mode: mode)
            storage.succeeded()
        } catch {
            storage.failed("delivering due notifications", ServiceFailure(error), backOff: true)
        }
    }

    /// One bounded maintenance step (retention, page reclaim) when the engine owes one; skipped while
    /// a storage failure is backed off.
    private func maintainWhenIdle(now: Instant) {
        guard storage.mayFire(at: now) else { return }
        do throws(EngineError) {
            try engine().maintainWhenIdle(now: now)
        } catch {
            storage.failed("maintenance", ServiceFailure(error), backOff: true)
        }
        events.maintained()
    }

    /// Starts delivering what is due at the clock's now in `mode`: one slice now, the rest in later loop
    /// iterations. A delivery already under way is finished first (clock steps during a catch-up are rare).
    public func startSlicedDelivery(mode: AdvanceMode) throws(EngineError) {
        while self.mode != nil { try deliverSlice() }
        self.mode = mode
        try deliverSlice()
    }

    /// One slice of the delivery under way; schedules the next while due entries remain.
    private func deliverSlice() throws(EngineError) {
        guard let mode else { return }
        do throws(EngineError) {
            try engine().advance(to: clock.now, mode: mode, maxBatches: Self.batchesPerSlice)
        } catch {
            self.mode = nil
            answerRepliesAfterDelivery(failure: ServiceFailure(error))
            throw error
        }
        guard engine().isAdvancing else {
            self.mode = nil
            answerRepliesAfterDelivery(failure: nil)
            return
        }
        // Without a loop (the dispatch fuzzer), the remaining slices at once.
        guard continueWork.isLooped else { return try deliverSlice() }
        continueWork.request()
    }

    /// The `.delivery` work's action: the next slice, then (when done) the usual settling.
    public func continueDelivery() {
        do throws(EngineError) {
            try deliverSlice()
            storage.succeeded()
        } catch {
            storage.failed("delivering due notifications", ServiceFailure(error), backOff: true)
        }
        if mode == nil { settle() }
    }

    /// Answers with `answer()` now, or — while a delivery is under way — once it is done.
    public func replyAfterDelivery(_ reply: @escaping CallReply, _ answer: @escaping () -> CallAnswer) {
        guard mode != nil else { return reply(.success(answer())) }
        repliesAfterDelivery.append((reply, answer))
    }

    private func answerRepliesAfterDelivery(failure: ServiceFailure?) {
        let waiting = repliesAfterDelivery
        repliesAfterDelivery.removeAll()
        for (reply, answer) in waiting { reply(failure.map { .failure($0) } ?? .success(answer())) }
    }

    /// The notifier could not show `notification` after all (its call failed or timed out): recorded
    /// `failed` in a loop callback of its own (the notifier may report this while the engine is busy).
    public func deliveryFailedLater(_ notification: DueNotification, _ reason: String) {
        lateFailures.append((notification, reason))
        failureWork.request()
    }

    /// A notification server appeared: retry what failed (after recording failures still queued).
    public func retryWhenServerAppeared() {
        retryWanted = true
        failureWork.request()
    }

    /// The `.lateFailures` work's action: records the queued failures in one transaction, then retries when a
    /// server appeared.
    public func recordLateFailures() {
        let failures = lateFailures
        lateFailures.removeAll()
        let engine = engine()
        if !failures.isEmpty {
            for (notification, reason) in failures { events.failedLate(notification, reason) }
            do throws(EngineError) {
                try engine.group { () throws(EngineError) in
                    for (notification, reason) in failures { try engine.deliveryFailed(notification, reason: reason) }
                }
            } catch {
                log.error("recording \(failures.count) failed deliveries failed: \(error.message)")
            }
        }
        guard retryWanted else { return }
        retryWanted = false
        log.info("a notification server appeared: retrying failed deliveries")
        do throws(EngineError) {
            _ = try engine.retryFailed(now: clock.now)
        } catch {
            log.error("retrying failed deliveries failed: \(error.message)")
        }
        settle()
    }
}
