import SchedCalendar

// Pushes: cancel first, then the idempotent upsert of `bk.local` (CONTRACT §1, §7 "Push answers").
extension Engine {
    /// Applies one push (cancel first, then local) in one transaction. Durable before it returns.
    ///
    /// Outcomes: one for `bk.cancel` (status `cancelled`, the ids it cancelled), then one for `bk.local`:
    /// - `cancelled`: a tombstone for its id or run blocks it (not one left by this push's own cancel);
    /// - `duplicate`: a pending schedule with the same id has the same fingerprint, or a finished one
    ///   (fired or missed) does — nothing changes, nothing is shown again;
    /// - `replaced`: a pending schedule with the same id but other content was replaced (history `replaced`
    ///   with the old due);
    /// - `missed`: an `at` already later than its grace (or a calendar with no occurrence left): history
    ///   `missed`, nothing shown;
    /// - `scheduled`: otherwise, including new content under the id of a one-shot that already fired.
    public func push(_ push: Push, now: Instant) throws(EngineError) -> [PushOutcome] {
        try pushBatch([push], now: now)[0]
    }

    /// Applies many pushes in one group commit (one fsync); outcomes in input order. All or nothing:
    /// when the store fails, no push of the batch is applied.
    public func pushBatch(_ pushes: [Push], now: Instant) throws(EngineError) -> [[PushOutcome]] {
        lastNow = now
        var closes: [(id: String, push: Int, outcome: Int)] = []
        var outcomes: [[PushOutcome]] = []
        outcomes.reserveCapacity(pushes.count)
        try storage { () throws(StoreError) in
            try store.transaction { () throws(StoreError) in
                for push in pushes {
                    do throws(EngineError) {
                        var own: [String] = []
                        outcomes.append(try apply(push, now: now, closes: &own))
                        // A push's closes belong to its `bk.cancel` line, the first outcome.
                        closes += own.map { ($0, outcomes.count - 1, 0) }
                    } catch {
                        throw StoreError(carrying: error)  // e.g. `.invalidArgument` for an unknown zone
                    }
                }
            }
        }
        // After the commit: close what was on screen; each cancel line says what it closed.
        let closed = Set(try closeShown(closes.map(\.id), reason: "push", now: now))
        for (id, push, outcome) in closes where closed.contains(id) {
            if outcomes[push][outcome].closed?.contains(id) != true { outcomes[push][outcome].closed?.append(id) }
        }
        return outcomes
    }

    private func apply(_ push: Push, now: Instant, closes: inout [String]) throws(EngineError) -> [PushOutcome] {
        var outcomes: [PushOutcome] = []
        if let cancel = push.cancel {
            // An unchanged pending schedule named by this push's own `bk.local` is spared, so that the same
            // cancel+local push delivered twice changes nothing the second time.
            var spared: String?
            if let local = push.local,
               let pending = try storage({ () throws(StoreError) in try store.pendingSummary(id: local.id) }),
               pending.fingerprint == local.digest {
                spared = local.id
            }
            switch cancel {
            case .id(let id):
                let ids = try cancelSchedules(id: id, reason: "push", sparing: spared, now: now, closes: &closes)
                outcomes.append(PushOutcome(id: id, status: .cancelled, next: nil, cancelled: ids, closed: []))
            case .run(let run):
                let ids = try cancelSchedules(run: run, reason: "run", sparing: spared, now: now, closes: &closes)
                outcomes.append(PushOutcome(id: run, status: .cancelled, next: nil, cancelled: ids, closed: [],
                                            isRun: true))
            }
        }
        if let local = push.local {
            outcomes.append(try apply(local, messageId: push.messageId, ownCancel: push.cancel, now: now))
        }
        return outcomes
    }

    private func apply(_ local: LocalSchedule, messageId: String?, ownCancel: CancelRequest?, now: Instant)
        throws(EngineError) -> PushOutcome {
        try storage { () throws(StoreError) -> PushOutcome in
            let digest = local.digest
            let known = try store.pushLookup(id: local.id, run: local.runId)
            // The tombstone this push's own cancel names does not block it.
            if (known.idTombstoned && ownCancel != .id(local.id))
                || (known.runTombstoned && ownCancel != .run(local.runId)) {
                return PushOutcome(id: local.id, status: .cancelled, next: nil)
            }
            let pending = known.pending
            if let pending, pending.fingerprint == digest {
                return PushOutcome(id: local.id, status: .duplicate, next: pending.next)
            }
            let applied = try store.isApplied(id: local.id, digest: digest)
            if applied || known.finishedFingerprint == digest {
                // Applied before — delivered twice, or an older version after a newer one, before or after
                // firing: it changes nothing and shows nothing (CONTRACT §1).
                return PushOutcome(id: local.id, status: .duplicate, next: pending?.next)
            }
            try store.recordApplied(id: local.id, digest: digest, at: now)
            let made: (StoredSchedule, Instant?)
            do throws(EngineError) { made = try makeSchedule(local, messageId: messageId, now: now) } catch {
                throw StoreError(carrying: error)
            }
            var (schedule, next) = made
            var status = PushOutcome.Status.scheduled
            if let pending, let old = try store.schedule(key: pending.key) {
                try store.delete(old)
                cancelTimer(key: old.key)
                try store.appendHistory(HistoryRecord(
                    id: old.id, event: .replaced, at: now, due: old.next, reason: nil, lateSeconds: nil,
                    title: old.title, messageId: old.messageId, dataJSON: old.dataJSON))
                status = .replaced
            }
            if schedule.kind != .calendar, let due = next,
               !Self.isWithinGrace(due: due, at: now, graceSeconds: grace(of: schedule)) {
                next = nil
            }
            guard let due = next else {
                let missedDue: Instant? = schedule.kind == .calendar ? nil : schedule.next
                try store.appendHistory(HistoryRecord(
                    id: schedule.id, event: .missed, at: now, due: missedDue,
                    reason: schedule.kind == .calendar ? "no occurrence" : nil,
                    lateSeconds: missedDue.map { Self.seconds(from: $0, to: now) }, title: schedule.title,
                    messageId: schedule.messageId, dataJSON: schedule.dataJSON))
                try recordFinished(schedule, outcome: .missed, due: missedDue, now: now)
                return PushOutcome(id: local.id, status: .missed, next: nil)
            }
            schedule.next = due
            schedule.key = try store.insert(schedule)
            scheduleTimer(key: schedule.key, due: due)
            return PushOutcome(id: local.id, status: status, next: due)
        }
    }
}
