import SchedCalendar

/// Pushes as a part of the engine over its one state (docs/architecture.md "The engine's parts"): cancel
/// first, then the idempotent upsert of `bk.local` (CONTRACT §1, §7 "Push answers"), judged by `quota`
/// (built per call by `Engine.quota` from the engine's bounds). `Engine.push`/`pushBatch`/`pushEach` are
/// the public calls.
struct PushIngest {
    let state: EngineState
    let quota: Quota
    var store: SQLiteScheduleStore { state.store }
    var cancellation: Cancellation { Cancellation(state: state) }
    var cancelJobParts: CancelJobs { CancelJobs(state: state) }
    var resolution: ZoneResolution { ZoneResolution(state: state) }
    var endings: Endings { Endings(state: state) }

    /// `pushEach` all or nothing: the outcomes of every push in input order, or the first push's error
    /// thrown with nothing applied. Same invariants and cost as `pushEach`.
    func pushAll(_ pushes: [Push], app: String, now: Instant, alongside: () throws(StoreError) -> Void = {})
        throws(EngineError) -> [[PushOutcome]] {
        var outcomes: [[PushOutcome]] = []
        for result in try pushEach(pushes, app: app, now: now, allOrNothing: true, alongside: alongside) {
            switch result {
            case .success(let o): outcomes.append(o)
            case .failure(let error): throw error
            }
        }
        return outcomes
    }

    /// Applies `pushes` of `app` in ONE transaction (inside an open group: the group's), in order:
    /// `allOrNothing` — any rejection or store failure undoes the whole call (thrown) — or each on its own,
    /// a rejected push (zone, quota…) undone alone by its savepoint and answered with its error; a store
    /// failure always fails the call. `alongside` runs last in the same transaction. Invariants: nothing
    /// reaches the wheel or the screen before COMMIT; closes of the pushes' cancels happen after it, each
    /// cancel outcome listing what it closed. O(pushes · log n) plus what their cancels cover.
    func pushEach(_ pushes: [Push], app: String, now: Instant, allOrNothing: Bool,
                          alongside: () throws(StoreError) -> Void = {})
        throws(EngineError) -> [Result<[PushOutcome], EngineError>] {
        state.lastNow = now
        var results: [Result<[PushOutcome], EngineError>] = []
        results.reserveCapacity(pushes.count)
        // What each applied push may have put off screen (its `bk.cancel`'s closes), by its index in `results`.
        var closes: [(push: Int, ids: [String])] = []
        // All or nothing needs no savepoint per push where a throw undoes the whole call anyway (its own
        // transaction, or the group member's savepoint); nested elsewhere, one savepoint for the whole batch.
        let perPush = !allOrNothing
        let wholeBatch = allOrNothing && !state.failureUndoesCall
        _ = try state.transaction { (changes: inout ChangeSet) throws(StoreError) in
            try state.savepoint(wholeBatch, &changes) { (changes: inout ChangeSet) throws(StoreError) in
                for push in pushes {
                    do throws(StoreError) {
                        // A push without `bk.cancel` writes nothing before its last check (zone, quota), so a
                        // rejection leaves nothing to undo: no savepoint. One with a cancel needs one.
                        let needsSavepoint = perPush && push.cancel != nil
                        var own = ChangeSet()
                        let outcome = try state.savepoint(needsSavepoint, &own) { (own: inout ChangeSet) throws(StoreError) in
                            try state.wrap { () throws(EngineError) in try apply(push, app: app, now: now, changes: &own) }
                        }
                        // Applied: its changes join the call's (a rejected push's `own` is dropped, as its
                        // savepoint was rolled back).
                        results.append(.success(outcome))
                        if !own.closes.isEmpty { closes.append((results.count - 1, own.closes)) }
                        own.closes = []
                        changes.append(own)
                    } catch {
                        // Only an engine rejection (zone, quota…: checked before anything is written, or
                        // undone by the push's savepoint) is that push's alone. A store failure is not: the
                        // statement it stopped may have left the push half-written (its old row deleted, its
                        // history not), so it fails the batch, which its transaction or savepoint undoes.
                        guard let carried = error.carried, carried.kind != .storage, !allOrNothing else { throw error }
                        results.append(.failure(carried))
                    }
                }
            }
            try alongside()
        }
        if !closes.isEmpty { Snoozes(state: state).refreshDue() }
        // After the commit: close what was on screen; each cancel line (a push's first outcome) says what it closed.
        let closed = Set(try cancellation.closeShown(closes.flatMap(\.ids), app: app, reason: "push", now: now)
                            .map(StoredName.init))
        for (push, ids) in closes {
            guard case .success(var outcomes) = results[push] else { continue }
            outcomes[0].closed = Self.listing(outcomes[0].closed, adding: ids.filter { closed.contains(StoredName($0)) })
            results[push] = .success(outcomes)
        }
        return results
    }

    /// `listed` with each of `ids` it does not hold yet (by bytes, `sameName`) appended, in order (nil stays nil).
    private static func listing(_ listed: [String]?, adding ids: [String]) -> [String]? {
        guard var listed else { return nil }
        for id in ids where !listed.contains(where: { sameName($0, id) }) { listed.append(id) }
        return listed
    }

    private func apply(_ push: Push, app: String, now: Instant, changes: inout ChangeSet) throws(EngineError) -> [PushOutcome] {
        // A push with `bk.cancel` runs in a savepoint (`pushEach`), so the quota may judge it after its writes.
        guard push.cancel != nil else { return try applyInQuota(push, app: app, now: now, changes: &changes) }
        return try quota.within(app: app, what: "this push") { () throws(EngineError) in
            try applyInQuota(push, app: app, now: now, changes: &changes)
        }
    }

    private func applyInQuota(_ push: Push, app: String, now: Instant, changes: inout ChangeSet)
        throws(EngineError) -> [PushOutcome] {
        var outcomes: [PushOutcome] = []
        if let cancel = push.cancel {
            // An unchanged pending schedule named by this push's own `bk.local` is spared, so that the same
            // cancel+local push delivered twice changes nothing the second time.
            var spared: String?
            if let local = push.local,
               let pending = try storeCalls({ () throws(StoreError) in try store.schedules.pendingSummary(app: app, id: local.id) }),
               pending.fingerprint == local.digest {
                spared = local.id
            }
            switch cancel {
            case .id(let id):
                let ids = try cancellation.cancelSchedules(app: app, id: id, reason: "push", sparing: spared, now: now, changes: &changes)
                outcomes.append(PushOutcome(id: id, status: .cancelled, next: nil, cancelled: ids, closed: []))
            case .run(let run):
                let (ids, unlisted) = try cancellation.cancelSchedules(app: app, run: run, reason: "run", sparing: spared, now: now,
                                                          changes: &changes)
                var outcome = PushOutcome(id: run, status: .cancelled, next: nil, cancelled: ids, closed: [], isRun: true)
                outcome.cancelledUnlisted = unlisted
                outcomes.append(outcome)
            }
        }
        if let local = push.local {
            outcomes.append(try apply(local, app: app, messageId: push.messageId, extras: push.scheduleExtras,
                                      ownCancel: push.cancel, now: now, changes: &changes))
        }
        return outcomes
    }

    private func apply(_ local: LocalSchedule, app: String, messageId: String?, extras: NotificationExtras,
                       ownCancel: CancelRequest?, now: Instant, changes: inout ChangeSet) throws(EngineError) -> PushOutcome {
        try storeCalls { () throws(StoreError) -> PushOutcome in
            let digest = local.digest
            // A pending schedule a cancellation job covers is cancelled first: its tombstone then blocks this push.
            if store.cancelJobs.mayExist, let s = try store.schedules.schedule(app: app, id: local.id) {
                _ = try cancelJobParts.settleCovered(s, changes: &changes)
            }
            let known = try store.schedules.pushLookup(app: app, id: local.id, run: local.runId, digest: digest)
            // The tombstone this push's own cancel names does not block it.
            if (known.idTombstoned && ownCancel != .id(local.id))
                || (known.runTombstoned && ownCancel != .run(local.runId)) {
                return PushOutcome(id: local.id, status: .cancelled, next: nil)
            }
            let pending = known.pending
            if let pending, pending.fingerprint == digest {
                return PushOutcome(id: local.id, status: .duplicate, next: pending.next)
            }
            if known.isApplied(digest: digest) {
                // Applied before — delivered twice, or an older version after a newer one, before or after
                // firing: it changes nothing and shows nothing (CONTRACT §1).
                return PushOutcome(id: local.id, status: .duplicate, next: pending?.next)
            }
            let made: (StoredSchedule, Instant?)
            do throws(EngineError) {
                made = try resolution.makeSchedule(local, digest: digest, app: app, messageId: messageId, extras: extras, now: now)
            } catch {
                throw StoreError(carrying: error)
            }
            // The digest is kept by the row it becomes part of (the schedule, or its finished record when
            // missed); the store moves it to `applied` when that row goes (schema v6: kept once).
            var (schedule, next) = made
            if schedule.kind != .calendar, let due = next,
               !Firing.isWithinGrace(due: due, at: now, graceSeconds: state.grace(of: schedule)) {
                next = nil
            }
            var old: StoredSchedule?
            if let pending { old = try store.schedules.schedule(key: pending.key) }
            // The row as it will be stored, encoded once for the quota check and the insert.
            var encoded: RowEncoding?
            if let due = next {
                schedule.next = due
                encoded = RowEncoding(schedule)
            }
            if let encoded {
                // Checked before anything is written (no savepoint needed, see `pushEach`).
                let bytes = encoded.storedBytes - (old.map { store.schedules.storedBytes(of: $0) } ?? 0)
                try state.wrap { () throws(EngineError) in try quota.check(app: app, adding: bytes, countingOne: old == nil) }
            }
            var status = PushOutcome.Status.scheduled
            if let old {
                try store.schedules.delete(old)
                changes.disarm(key: old.key)
                try store.history.append(HistoryRecord(
                    app: app, id: old.id, event: .replaced, at: now, due: old.next, reason: nil, lateSeconds: nil,
                    title: old.title, messageId: old.messageId, dataJSON: old.dataJSON))
                status = .replaced
            }
            guard let due = next, let encoded else {
                // Shown never: what is kept is what duplicate detection needs (id, digest, due: the finished
                // record has no payload) and a history record without data; both count against the quota
                // (checked before anything is written, like a schedule's bytes).
                let kept = StoreKeptBytes.finished(id: schedule.id, title: nil, messageId: nil, dataJSON: nil)
                    - (old.map { store.schedules.storedBytes(of: $0) } ?? 0)
                try state.wrap { () throws(EngineError) in try quota.check(app: app, adding: kept, countingOne: false) }
                let missedDue: Instant? = schedule.kind == .calendar ? nil : schedule.next
                try store.history.append(HistoryRecord(
                    app: app, id: schedule.id, event: .missed, at: now, due: missedDue,
                    reason: schedule.kind == .calendar ? "no occurrence" : nil,
                    lateSeconds: missedDue.map { Firing.seconds(from: $0, to: now) }, title: schedule.title,
                    messageId: nil, dataJSON: nil))
                try endings.recordFinished(schedule, outcome: .missed, due: missedDue, now: now)
                return PushOutcome(id: local.id, status: .missed, next: nil)
            }
            schedule.key = try store.schedules.insert(schedule, encoded: encoded)
            changes.arm(key: schedule.key, due: due)
            var outcome = PushOutcome(id: local.id, status: status, next: due)
            if extras.wake {
                outcome.wake = state.wakeCapability
                state.wakeMayHaveChanged = true
            }
            return outcome
        }
    }
}
