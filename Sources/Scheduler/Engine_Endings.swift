import SchedCalendar

/// What a schedule leaves when it is over — history `expired`, the finished record that keeps answering
/// a repeated push `duplicate` — a part of the engine over its one state (docs/architecture.md "The
/// engine's parts"), used by firing, pushes, zone changes and tzdata updates. Store writes only, inside the
/// caller's transaction.
struct Endings {
    let state: EngineState

    /// Within a transaction: a repeating schedule with no occurrence left leaves the pending set with
    /// history `expired` (reason `until`, or why it cannot be evaluated any more) and a finished record.
    /// The caller disarms its key in the transaction's change set. O(log n).
    func expire(_ s: StoredSchedule, now: Instant, reason: String? = nil) throws(StoreError) {
        try state.store.schedules.delete(s)
        try state.store.history.append(HistoryRecord(
            app: s.app, id: s.id, event: .expired, at: now, due: s.lastDue, reason: reason ?? (s.untilInstant != nil
                || s.untilWall != nil ? "until" : "no occurrence"),
            lateSeconds: nil, title: s.title, messageId: s.messageId, dataJSON: s.dataJSON))
        try recordFinished(s, outcome: s.lastDue == nil ? .missed : .fired, due: s.lastDue, now: now)
    }

    /// Remembers a schedule that is over, so a redelivery of the same push is a `duplicate`. Invariant: kept
    /// at least 30 days and past its grace; a missed one keeps no payload (CONTRACT §8). O(log n).
    func recordFinished(_ s: StoredSchedule, outcome: HistoryRecord.Event, due: Instant?, now: Instant)
        throws(StoreError) {
        var keepUntil = now.adding(seconds: Engine.tombstoneRetentionSeconds)
        if let due {
            let graceEnd = due.adding(seconds: min(state.grace(of: s), Int64.max / 2_000_000))
            if graceEnd > keepUntil { keepUntil = graceEnd }
        }
        // A missed schedule was never shown: nothing will be opened or dismissed, so its record keeps only
        // what duplicate detection needs (id, digest, due), not its payload (CONTRACT §8 "Quota").
        let shown = outcome != .missed
        try state.store.finished.save(FinishedSchedule(
            app: s.app, id: s.id, fingerprint: s.fingerprint, outcome: outcome, due: due, finishedAt: now, keepUntil: keepUntil,
            title: shown ? s.title : nil, messageId: shown ? s.messageId : nil, dataJSON: shown ? s.dataJSON : nil))
    }
}

extension Engine {
    var endings: Endings { Endings(state: state) }
}
