import SchedCalendar

// Snooze (CONTRACT §8): a shown notification hidden and shown again after one of its `snoozeSeconds`.
extension Engine {
    /// The person pressed "Snooze" for `seconds` on `notification` (as it was shown): it is kept in the
    /// store and shown again at `now + seconds` (history `snoozed`, reason `snooze:SECONDS`; the re-show is
    /// `fired` with reason `snoozed`). Durable before it returns; survives restarts. A cancel of its id or
    /// run (push, CLI, event) cancels the snoozed one too. `seconds` must be in `PushDecoder.snoozeRange`.
    public func snooze(_ notification: DueNotification, seconds: Int64, now: Instant) throws(EngineError) {
        guard PushDecoder.snoozeRange.contains(seconds) else {
            throw EngineError(.invalidArgument, "snooze: \(seconds) s is outside \(PushDecoder.snoozeRange.lowerBound)…"
                + "\(PushDecoder.snoozeRange.upperBound) s")
        }
        let until = now.adding(seconds: seconds)
        _ = try transaction { (_: inout ChangeSet) throws(StoreError) in
            try store.snoozed.remove(app: notification.app, id: notification.id)
            try store.snoozed.add(notification, until: until)
            var record = HistoryRecord(app: notification.app, id: notification.id, event: .snoozed, at: now,
                                       due: notification.due, reason: "snooze:\(seconds)", lateSeconds: nil,
                                       title: nil, messageId: nil, dataJSON: nil)
            try fillDetails(&record)
            if record.title == nil {
                (record.title, record.messageId, record.dataJSON) = (notification.title, notification.messageId,
                                                                    notification.dataJSON)
            }
            try store.history.append(record)
        }
        refreshSnoozeDue()
    }

    /// Shows again every snoozed notification whose time came (`until` ≤ `now`), earliest first: each is
    /// taken out of the store and recorded `fired` (reason `snoozed`, late from its `until`) in one
    /// transaction before it is handed to the notifier. Beyond the default grace it is `missed` instead.
    func deliverSnoozed(now: Instant) throws(EngineError) -> [DueNotification] {
        guard let due = snoozeDue, due <= now else { return [] }
        var firings: [Firing] = []
        _ = try transaction { (_: inout ChangeSet) throws(StoreError) in
            for item in try store.snoozed.due(by: now) {
                var n = item.notification
                // The re-show is due when the snooze ends: its log line, notifier line and signal say
                // so, as its history record does.
                n.due = item.until
                n.at = now
                n.lateSeconds = Self.seconds(from: item.until, to: now)
                let shown = Self.isWithinGrace(due: item.until, at: now, graceSeconds: defaultGraceSeconds)
                try store.snoozed.remove(seq: item.seq)
                try store.history.append(HistoryRecord(
                    app: n.app, id: n.id, event: shown ? .fired : .missed, at: now, due: item.until, reason: "snoozed",
                    lateSeconds: n.lateSeconds, title: n.title, messageId: n.messageId, dataJSON: n.dataJSON))
                if shown { firings.append(Firing(notification: n, graceSeconds: nil)) }
            }
        }
        refreshSnoozeDue()
        return try deliver(firings, now: now)
    }

    /// Re-reads the earliest snoozed `until` (O(log n)); nil when none or unreadable.
    func refreshSnoozeDue() {
        snoozeDue = (try? store.snoozed.nextUntil()) ?? nil
    }
}

extension Engine {
    /// The snoozed notifications of `app` (nil: of every app), soonest back first, at most `limit`:
    /// what `schedd list` shows beside the pending schedules. O(snoozed).
    public func snoozedList(app: String?, limit: Int) throws(EngineError) -> [SnoozedNotification] {
        let all = try storage { () throws(StoreError) in try store.snoozed.due(by: Instant(microseconds: Int64.max)) }
        return Array(all.lazy.filter { app == nil || $0.notification.app == app }.prefix(max(0, limit)))
    }
}
