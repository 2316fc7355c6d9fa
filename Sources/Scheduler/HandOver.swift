import SchedCalendar

/// Handing committed firings to the notifier, and what a failed hand-over leaves (history `failed`, the
/// retry queue `failed_deliveries`): a part of the engine over its one state (docs/architecture.md "The
/// engine's parts"). Firing (`Engine.advance`) and snoozes hand their committed firings to `deliver`.
struct HandOver {
    let state: EngineState

    /// Hands recorded firings to the notifier in order; failures are recorded (history `failed`) and queued
    /// for `retryFailed` in one transaction. Returns everything handed over. Invariant: called only with
    /// firings already committed (at-most-once); the hand-over is confirmed by the next commit.
    /// O(firings) notifier calls, O(failures · log n) store work.
    func deliver(_ firings: [Firing], now: Instant) throws(EngineError) -> [DueNotification] {
        var failures: [(Firing, String)] = []
        for firing in firings {
            // `.pending`: an asynchronous notifier reports a failure later, through `deliveryFailed`.
            if case .failed(let reason) = state.notifier.show(firing.notification) { failures.append((firing, reason)) }
        }
        if !firings.isEmpty { state.store.history.confirmHandOver() }  // written by the next commit, whichever it is
        try recordFailures(failures)
        return firings.map(\.notification)
    }

    /// An asynchronous notifier's late answer: the hand-over of `notification` (which `show` answered
    /// `.pending`) failed. Recorded like a failure `show` reports at once: history `failed`, queued for
    /// `retryFailed`. One transaction, O(log n).
    func deliveryFailed(_ notification: DueNotification, reason: String) throws(EngineError) {
        try recordFailures([(Firing(notification: notification, graceSeconds: notification.graceSeconds), reason)])
    }

    private func recordFailures(_ failures: [(Firing, String)]) throws(EngineError) {
        guard !failures.isEmpty else { return }
        _ = try state.transaction { (_: inout ChangeSet) throws(StoreError) in
            for (firing, reason) in failures {
                let n = firing.notification
                try state.store.history.append(HistoryRecord(
                    app: n.app, id: n.id, event: .failed, at: n.at, due: n.due, reason: reason, lateSeconds: n.lateSeconds,
                    title: n.title, messageId: n.messageId, dataJSON: n.dataJSON))
                let expires = StoreCoding.graceEnd(due: n.due, graceSeconds: firing.graceSeconds ?? state.defaultGraceSeconds)
                try state.store.failedDeliveries.add(n, graceSeconds: firing.graceSeconds, expires: Instant(microseconds: expires))
            }
        }
    }

    /// Retries every notification whose delivery `failed` (a notification server appeared), oldest due first.
    ///
    /// Each is taken off the retry queue and recorded again before it is shown: `fired` (reason `retry`,
    /// lateness from its due) when still within its grace, else `missed` (reason `retry`). A retry that
    /// fails again is recorded `failed` and queued again. Invariant: each is recorded before it is shown
    /// (at-most-once). O(failed · log n).
    func retryFailed(now: Instant) throws(EngineError) -> [DueNotification] {
        var firings: [Firing] = []
        _ = try state.transaction { (_: inout ChangeSet) throws(StoreError) in
            for failed in try state.store.failedDeliveries.all() {
                var n = failed.notification
                n.graceSeconds = failed.graceSeconds
                n.at = now
                n.lateSeconds = Firing.seconds(from: n.due, to: now)
                let shown = Firing.isWithinGrace(due: n.due, at: now, graceSeconds: failed.graceSeconds ?? state.defaultGraceSeconds)
                try state.store.failedDeliveries.remove(seq: failed.seq)
                try state.store.history.append(HistoryRecord(
                    app: n.app, id: n.id, event: shown ? .fired : .missed, at: now, due: n.due, reason: "retry",
                    lateSeconds: n.lateSeconds, title: n.title, messageId: n.messageId, dataJSON: n.dataJSON),
                    awaitingHandOver: shown)
                if shown { firings.append(Firing(notification: n, graceSeconds: failed.graceSeconds)) }
            }
        }
        return try deliver(firings, now: now)
    }
}

extension Engine {
    var handOver: HandOver { HandOver(state: state) }

    /// An asynchronous notifier's late answer: the hand-over of `notification` (which `show` answered
    /// `.pending`) failed. Recorded like a failure `show` reports at once: history `failed`, queued for
    /// `retryFailed`. One transaction, O(log n) (`HandOver.deliveryFailed`).
    public func deliveryFailed(_ notification: DueNotification, reason: String) throws(EngineError) {
        try handOver.deliveryFailed(notification, reason: reason)
    }

    /// Retries every notification whose delivery `failed` (a notification server appeared), oldest due first:
    /// `fired` (reason `retry`) within its grace, else `missed`; recorded before shown. O(failed · log n)
    /// (`HandOver.retryFailed`).
    public func retryFailed(now: Instant) throws(EngineError) -> [DueNotification] {
        try handOver.retryFailed(now: now)
    }
}
