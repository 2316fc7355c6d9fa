import ScheddClientCore
import SchedCalendar
import ScheddBus
import Scheduler

/// Delivering what is due in bounded slices, and the notifier's late answers (docs/faults.md).
///
/// The loop never waits on another process and never works for long without coming back to the bus:
/// - due entries are decided and handed over `batchesPerSlice` batches (of `Engine.firingBatchSize`)
///   per loop iteration; `continueTrigger` (below the bus and the group commit in priority) goes on in
///   the next iteration, so calls, bus traffic and the watchdog interleave with a long catch-up;
/// - `ClockAdvance`/`ClockSet` are answered once the whole delivery they started is done
///   (`replyAfterDelivery`), other calls at once;
/// - an asynchronous notifier's failures arrive later (`deliveryFailedLater`) and are recorded from a
///   loop callback of their own (`failureTrigger`), never from inside another engine call.
extension Daemon {
    /// Batches per slice: one transaction (at most `Engine.firingBatchSize` decisions) per iteration.
    static let batchesPerSlice = 1

    /// Starts delivering what is due at the clock's now in `mode`: one slice now, the rest in later loop
    /// iterations. A delivery already under way is finished first (clock steps during a catch-up are rare).
    func startSlicedDelivery(mode: AdvanceMode) throws(EngineError) {
        while deliveryMode != nil { try deliverSlice() }
        deliveryMode = mode
        try deliverSlice()
    }

    /// One slice of the delivery under way; schedules the next while due entries remain.
    private func deliverSlice() throws(EngineError) {
        guard let mode = deliveryMode else { return }
        do throws(EngineError) {
            try engine.advance(to: clock.now, mode: mode, maxBatches: Self.batchesPerSlice)
        } catch {
            deliveryMode = nil
            answerRepliesAfterDelivery(failure: ServiceFailure(error))
            throw error
        }
        guard engine.isAdvancing else {
            deliveryMode = nil
            answerRepliesAfterDelivery(failure: nil)
            return
        }
        do throws(BusError) {
            try continueTrigger?.trigger()
        } catch {
            fatal("cannot schedule the next delivery slice (\(error)): due notifications would stay undelivered")
        }
    }

    /// `continueTrigger`'s action: the next slice, then (when done) the usual settling.
    func continueDelivery() {
        do throws(EngineError) {
            try deliverSlice()
            storageSucceeded()
        } catch {
            storageFailed("delivering due notifications", error.message, backOff: true)
        }
        if deliveryMode == nil { settle() }
    }

    /// Answers `m` with `text()` now, or — while a delivery is under way — once it is done.
    func replyAfterDelivery(_ m: BusMessage, _ text: @escaping () -> String) -> BusMethodResult {
        guard deliveryMode != nil else {
            do throws(BusError) {
                try m.reply { r throws(BusError) in try r.append(text()) }
                return .replied
            } catch {
                return .failed(name: SchedulerErrorName.usage.rawValue, message: error.detail)
            }
        }
        repliesAfterDelivery.append((m.deferReply(), text))
        return .deferred
    }

    private func answerRepliesAfterDelivery(failure: ServiceFailure?) {
        let waiting = repliesAfterDelivery
        repliesAfterDelivery.removeAll()
        for (call, text) in waiting {
            do throws(BusError) {
                if let failure {
                    try call.replyError(name: failure.name.rawValue, message: failure.message)
                } else {
                    try call.reply { r throws(BusError) in try r.append(text()) }
                }
            } catch {
                logger.warning("cannot answer \(call.member): \(error)")
            }
        }
    }

    /// The desktop notifier could not show `notification` after all (its call failed or timed out):
    /// recorded `failed` in a loop callback of its own (the notifier may report this while the engine is
    /// busy, e.g. when it replaces a connection inside `show`).
    func deliveryFailedLater(_ notification: DueNotification, _ reason: String) {
        lateFailures.append((notification, reason))
        triggerFailureRecording()
    }

    /// A notification server appeared: retry what failed (after recording failures still queued).
    func retryWhenServerAppeared() {
        retryWanted = true
        triggerFailureRecording()
    }

    private func triggerFailureRecording() {
        do throws(BusError) {
            try failureTrigger?.trigger()
        } catch {
            logger.error("cannot schedule recording failed deliveries (\(error)): recording at once")
            recordLateFailures()
        }
    }

    /// `failureTrigger`'s action: records the queued failures in one transaction, then retries when a
    /// server appeared.
    func recordLateFailures() {
        let failures = lateFailures
        lateFailures.removeAll()
        if !failures.isEmpty {
            for (notification, reason) in failures { announcer.logFailure(notification, reason) }
            do throws(EngineError) {
                try engine.group { () throws(EngineError) in
                    for (notification, reason) in failures { try engine.deliveryFailed(notification, reason: reason) }
                }
            } catch {
                logger.error("recording \(failures.count) failed deliveries failed: \(error.message)")
            }
        }
        guard retryWanted else { return }
        retryWanted = false
        logger.info("a notification server appeared: retrying failed deliveries")
        do throws(EngineError) {
            _ = try engine.retryFailed(now: clock.now)
        } catch {
            logger.error("retrying failed deliveries failed: \(error.message)")
        }
        settle()
    }
}
