import SchedCalendar

/// Snooze (CONTRACT §8): a shown notification hidden and shown again after one of its `snoozeSeconds`.
/// A part of the engine (docs/architecture.md "The engine's parts"): a value over the engine's one state,
/// writing only table `snoozed` and history, and the cached earliest re-show (`EngineState.snoozeDue`).
/// `Engine.snooze`/`snoozedList` are the public calls; `Engine.advance` hands `takeDue`'s firings to the
/// notifier.
struct Snoozes {
    let state: EngineState

    /// `notification` (as it was shown) is kept in `snoozed` until `now + seconds` and recorded `snoozed`
    /// (reason `snooze:SECONDS`), in one transaction; the cached earliest re-show follows. Invariant: a
    /// snoozed notification is in the store before this returns, so it survives a restart; `seconds` must
    /// be in `PushDecoder.snoozeRange` (else `.invalidArgument`, nothing written). O(log n).
    func snooze(_ notification: DueNotification, seconds: Int64, now: Instant) throws(EngineError) {
        guard PushDecoder.snoozeRange.contains(seconds) else {
            throw EngineError(.invalidArgument, "snooze: \(seconds) s is outside \(PushDecoder.snoozeRange.lowerBound)…"
                + "\(PushDecoder.snoozeRange.upperBound) s")
        }
        let until = now.adding(seconds: seconds)
        let store = state.store
        _ = try state.transaction { (_: inout ChangeSet) throws(StoreError) in
            try store.snoozed.remove(app: notification.app, id: notification.id)
            try store.snoozed.add(notification, until: until)
            var record = HistoryRecord(app: notification.app, id: notification.id, event: .snoozed, at: now,
                                       due: notification.due, reason: "snooze:\(seconds)", lateSeconds: nil,
                                       title: nil, messageId: nil, dataJSON: nil)
            try state.fillDetails(&record)
            if record.title == nil {
                (record.title, record.messageId, record.dataJSON) = (notification.title, notification.messageId,
                                                                    notification.dataJSON)
            }
            try store.history.append(record)
        }
        refreshDue()
    }

    /// Takes every snoozed notification whose time came (`until` ≤ `now`) out of the store, earliest first,
    /// recording each `fired` (reason `snoozed`, late from its `until`) — or `missed` beyond the default
    /// grace — in ONE transaction, and returns the ones to show. Invariant: committed before the caller
    /// hands them to the notifier (at-most-once). O(1) when none is due (the cached `snoozeDue`), else
    /// O(due · log n).
    func takeDue(now: Instant) throws(EngineError) -> [Firing] {
        guard let due = state.snoozeDue, due <= now else { return [] }
        var firings: [Firing] = []
        let store = state.store, grace = state.defaultGraceSeconds
        _ = try state.transaction { (_: inout ChangeSet) throws(StoreError) in
            for item in try store.snoozed.due(by: now) {
                var n = item.notification
                // The re-show is due when the snooze ends: its log line, notifier line and signal say
                // so, as its history record does.
                n.due = item.until
                n.at = now
                n.lateSeconds = Firing.seconds(from: item.until, to: now)
                let shown = Firing.isWithinGrace(due: item.until, at: now, graceSeconds: grace)
                try store.snoozed.remove(seq: item.seq)
                try store.history.append(HistoryRecord(
                    app: n.app, id: n.id, event: shown ? .fired : .missed, at: now, due: item.until, reason: "snoozed",
                    lateSeconds: n.lateSeconds, title: n.title, messageId: n.messageId, dataJSON: n.dataJSON))
                if shown { firings.append(Firing(notification: n, graceSeconds: nil)) }
            }
        }
        refreshDue()
        return firings
    }

    /// Re-reads the earliest snoozed `until` into `EngineState.snoozeDue` (O(log n)); nil when none or
    /// unreadable.
    func refreshDue() {
        state.snoozeDue = (try? state.store.snoozed.nextUntil()) ?? nil
    }

    /// The snoozed notifications of `app` (nil: of every app), soonest back first, at most `limit`.
    /// Reads only. O(snoozed).
    func list(app: String?, limit: Int) throws(EngineError) -> [SnoozedNotification] {
        let store = state.store
        let all = try storeCalls { () throws(StoreError) in try store.snoozed.due(by: Instant(microseconds: Int64.max)) }
        return Array(all.lazy.filter { app == nil || $0.notification.app == app }.prefix(max(0, limit)))
    }
}

// The engine's public snooze calls (the facade over `Snoozes`).
extension Engine {
    var snoozes: Snoozes { Snoozes(state: state) }

    /// The person pressed "Snooze" for `seconds` on `notification` (as it was shown): it is kept in the
    /// store and shown again at `now + seconds` (history `snoozed`, reason `snooze:SECONDS`; the re-show is
    /// `fired` with reason `snoozed`). Durable before it returns; survives restarts. A cancel of its id or
    /// run (push, CLI, event) cancels the snoozed one too. `seconds` must be in `PushDecoder.snoozeRange`.
    /// O(log n) (`Snoozes.snooze`).
    public func snooze(_ notification: DueNotification, seconds: Int64, now: Instant) throws(EngineError) {
        try snoozes.snooze(notification, seconds: seconds, now: now)
    }

    /// The snoozed notifications of `app` (nil: of every app), soonest back first, at most `limit`:
    /// what `schedd list` shows beside the pending schedules. O(snoozed) (`Snoozes.list`).
    public func snoozedList(app: String?, limit: Int) throws(EngineError) -> [SnoozedNotification] {
        try snoozes.list(app: app, limit: limit)
    }
}
