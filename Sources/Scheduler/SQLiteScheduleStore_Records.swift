import SchedCalendar

// Tombstones, finished schedules, history and failed deliveries.
extension SQLiteScheduleStore {
    // MARK: Tombstones

    public func addTombstone(app: String, _ kind: TombstoneKind, _ name: String, at: Instant) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            _ = try internApp(app)  // the byte quota's trigger counts it under the app's number
            let st = try db.statement("""
                INSERT INTO tombstones(app, kind, name, created_at) VALUES(?4, ?1, ?2, ?3)
                ON CONFLICT(app, kind, name) DO UPDATE SET created_at = max(created_at, excluded.created_at)
                """)
            st.bind(1, kind.rawValue)
            st.bind(2, name)
            st.bind(3, at.microseconds)
            st.bind(4, app)
            try st.run()
        }
    }

    public func hasTombstone(app: String, _ kind: TombstoneKind, _ name: String) throws(StoreError) -> Bool {
        try sql { () throws(SQLiteError) -> Bool in
            let st = try db.statement("SELECT 1 FROM tombstones WHERE app = ?3 AND kind = ?1 AND name = ?2")
            defer { st.reset() }
            st.bind(1, kind.rawValue)
            st.bind(2, name)
            st.bind(3, app)
            return try st.step()
        }
    }

    public func tombstoneCreated(app: String, _ kind: TombstoneKind, _ name: String) throws(StoreError) -> Instant? {
        try sql { () throws(SQLiteError) -> Instant? in
            let st = try db.statement("SELECT created_at FROM tombstones WHERE app = ?3 AND kind = ?1 AND name = ?2")
            defer { st.reset() }
            st.bind(1, kind.rawValue)
            st.bind(2, name)
            st.bind(3, app)
            return try st.step() ? Instant(microseconds: st.int64(0)) : nil
        }
    }

    public func forgetID(app: String, id: String) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let tombstone = try db.statement("DELETE FROM tombstones WHERE app = ?2 AND kind = 0 AND name = ?1")
            tombstone.bind(1, id)
            tombstone.bind(2, app)  // tombstones keep the app id as text
            try tombstone.run()
            // finished and applied key the app by its number. Order matters: deleting the finished row
            // moves its digest into applied (trigger finished_forget), so applied is cleared after it.
            let number = try lookupApp(app)
            for statement in ["DELETE FROM finished WHERE app = ?2 AND id = ?1",
                              "DELETE FROM applied WHERE app = ?2 AND id = ?1"] {
                let st = try db.statement(statement)
                st.bind(1, id)
                st.bind(2, number)
                try st.run()
            }
        }
    }

    /// A scan of the app's history from the newest (`history_by_app`), stopping at the first match.
    public func lastCancel(app: String, id: String) throws(StoreError) -> HistoryRecord? {
        try sql { () throws(SQLiteError) -> HistoryRecord? in
            let st = try db.statement("""
                SELECT at, reason FROM history WHERE app = ?1 AND id = ?2 AND event = 'cancelled' ORDER BY seq DESC LIMIT 1
                """)
            defer { st.reset() }
            st.bind(1, app)
            st.bind(2, id)
            guard try st.step() else { return nil }
            return HistoryRecord(app: app, id: id, event: .cancelled, at: Instant(microseconds: st.int64(0)), due: nil,
                                 reason: st.optionalString(1), lateSeconds: nil, title: nil, messageId: nil, dataJSON: nil)
        }
    }

    @discardableResult
    public func purgeTombstones(createdBefore cutoff: Instant) throws(StoreError) -> Int {
        try sql { () throws(SQLiteError) -> Int in
            let st = try db.statement("DELETE FROM tombstones WHERE created_at < ?1")
            st.bind(1, cutoff.microseconds)
            try st.run()
            return db.changes
        }
    }

    // MARK: Finished schedules

    public func finished(app: String, id: String) throws(StoreError) -> FinishedSchedule? {
        try sql { () throws(SQLiteError) -> FinishedSchedule? in
            let st = try db.statement("""
                SELECT digest, outcome, due, finished_at, keep_until, title, message_id, data
                FROM finished WHERE app = ?2 AND id = ?1
                """)
            defer { st.reset() }
            st.bind(1, id)
            st.bind(2, try lookupApp(app))
            guard try st.step() else { return nil }
            return FinishedSchedule(
                app: app, id: id, fingerprint: StoreRowCoding.readDigest(st, 0),
                outcome: HistoryRecord.Event(rawValue: st.string(1)) ?? .fired,
                due: st.optionalInt64(2).map(Instant.init(microseconds:)),
                finishedAt: Instant(microseconds: st.int64(3)), keepUntil: Instant(microseconds: st.int64(4)),
                title: st.optionalString(5), messageId: st.optionalString(6), dataJSON: st.optionalString(7))
        }
    }

    /// An upsert (a replaced digest moves into `applied` by the `finished_replace` trigger); the same
    /// digest left in `applied` by the schedule's deletion is removed, so it is kept once.
    public func recordFinished(_ r: FinishedSchedule) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let app = try internApp(r.app)
            let st = try db.statement("""
                INSERT INTO finished(id, digest, outcome, due, finished_at, keep_until, title, message_id, data, app) \
                VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                ON CONFLICT(app, id) DO UPDATE SET digest = excluded.digest, outcome = excluded.outcome, \
                due = excluded.due, finished_at = excluded.finished_at, keep_until = excluded.keep_until, \
                title = excluded.title, message_id = excluded.message_id, data = excluded.data
                """)
            st.bind(1, r.id)
            StoreRowCoding.bindDigest(r.fingerprint, 2, st)
            st.bind(3, r.outcome.rawValue)
            st.bind(4, r.due?.microseconds)
            st.bind(5, r.finishedAt.microseconds)
            st.bind(6, r.keepUntil.microseconds)
            st.bind(7, r.title)
            st.bind(8, r.messageId)
            st.bind(9, r.dataJSON)
            st.bind(10, app)
            try st.run()
            let kept = try db.statement("DELETE FROM applied WHERE app = ?1 AND id = ?2 AND digest = ?3")
            kept.bind(1, app)
            kept.bind(2, r.id)
            StoreRowCoding.bindDigest(r.fingerprint, 3, kept)
            try kept.run()
        }
    }

    @discardableResult
    public func purgeFinished(expiredBy now: Instant) throws(StoreError) -> Int {
        try sql { () throws(SQLiteError) -> Int in
            let st = try db.statement("DELETE FROM finished WHERE keep_until < ?1")
            st.bind(1, now.microseconds)
            try st.run()
            return db.changes
        }
    }

    public func finishedIDs(app: String, run: String) throws(StoreError) -> [String] {
        guard !run.contains(":") else { return [] }
        return try sql { () throws(SQLiteError) -> [String] in
            let st = try db.statement("SELECT id FROM finished WHERE app = ?4 AND (id = ?1 OR (id >= ?2 AND id < ?3))")
            defer { st.reset() }
            st.bind(4, try lookupApp(app))
            st.bind(1, run)
            st.bind(2, run + ":")
            st.bind(3, run + ";")
            var ids: [String] = []
            while try st.step() { ids.append(st.string(0)) }
            return ids
        }
    }

    // MARK: Metadata

    public func metadata(_ name: String) throws(StoreError) -> String? {
        try sql { () throws(SQLiteError) -> String? in
            let st = try db.statement("SELECT value FROM meta WHERE name = ?1")
            defer { st.reset() }
            st.bind(1, name)
            return try st.step() ? st.string(0) : nil
        }
    }

    public func setMetadata(_ name: String, _ value: String) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("INSERT OR REPLACE INTO meta(name, value) VALUES(?1, ?2)")
            st.bind(1, name)
            st.bind(2, value)
            try st.run()
        }
    }

    // MARK: Failed deliveries

    public func addFailedDelivery(_ n: DueNotification, graceSeconds: Int64?, expires: Instant) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("""
                INSERT INTO failed_deliveries(id, title, body, urgency, icon, category, actions, data, message_id, \
                due, grace, expires, app, extras) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
                """)
            st.bind(1, n.id)
            st.bind(2, n.title)
            st.bind(3, n.body)
            st.bind(4, StoreCoding.encodeUrgency(n.urgency))
            st.bind(5, n.icon)
            st.bind(6, n.category)
            st.bind(7, StoreCoding.encodeActions(n.actions))
            st.bind(8, n.dataJSON)
            st.bind(9, n.messageId)
            st.bind(10, n.due.microseconds)
            st.bind(11, graceSeconds)
            st.bind(12, expires.microseconds)
            st.bind(13, n.app)
            st.bind(14, StoreCoding.encode(extras: n.extras))
            try st.run()
        }
    }

    public func failedDeliveries() throws(StoreError) -> [FailedDelivery] {
        try failedDeliveries(where: "ORDER BY due, seq") { _ in }
    }

    private func failedDeliveries(where clause: String, _ bind: (SQLiteStatement) -> Void)
        throws(StoreError) -> [FailedDelivery] {
        try sql { () throws(SQLiteError) -> [FailedDelivery] in
            let st = try db.statement("""
                SELECT seq, id, title, body, urgency, icon, category, actions, data, message_id, due, grace, expires,
                    app, extras
                FROM failed_deliveries \(clause)
                """)
            defer { st.reset() }
            bind(st)
            var rows: [FailedDelivery] = []
            while try st.step() {
                let id = st.string(1)
                let due = Instant(microseconds: st.int64(10))
                var n = DueNotification(
                    app: st.string(13), id: id, runId: runId(of: id), title: st.string(2), body: st.optionalString(3),
                    urgency: StoreCoding.decodeUrgency(st.int64(4)), icon: st.optionalString(5),
                    category: st.optionalString(6), actions: StoreCoding.decodeActions(st.optionalString(7)),
                    dataJSON: st.optionalString(8), messageId: st.optionalString(9), due: due, at: due, lateSeconds: 0)
                n.extras = StoreCoding.decodeExtras(st.optionalString(14))
                rows.append(FailedDelivery(seq: st.int64(0), notification: n, graceSeconds: st.optionalInt64(11),
                                           expires: Instant(microseconds: st.int64(12))))
            }
            return rows
        }
    }

    public func removeFailedDelivery(seq: Int64) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("DELETE FROM failed_deliveries WHERE seq = ?1")
            st.bind(1, seq)
            try st.run()
        }
    }

    public func removeFailedDeliveries(app: String, id: String) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("DELETE FROM failed_deliveries WHERE app = ?2 AND id = ?1")
            st.bind(1, id)
            st.bind(2, app)
            try st.run()
        }
    }

    public func purgeFailedDeliveries(expiredBy now: Instant, limit: Int) throws(StoreError) -> [FailedDelivery] {
        let expired = try failedDeliveries(where: "WHERE expires < ?1 ORDER BY expires, seq LIMIT ?2") { st in
            st.bind(1, now.microseconds)
            st.bind(2, Int64(max(0, limit)))
        }
        for delivery in expired { try removeFailedDelivery(seq: delivery.seq) }
        return expired
    }

    // MARK: Applied pushes

    /// `applied` holds the digests that are no longer current (schema v6): a digest equal to the pending
    /// schedule's or the finished record's is already kept there, and is not written again.
    public func recordApplied(app: String, id: String, digest: String, at: Instant) throws(StoreError) {
        if try isCurrent(app: app, id: id, digest: digest) { return }
        try sql { () throws(SQLiteError) in
            let st = try db.statement("""
                INSERT INTO applied(app, id, digest, applied_at) VALUES(?4, ?1, ?2, ?3)
                ON CONFLICT(app, id, digest) DO UPDATE SET applied_at = max(applied_at, excluded.applied_at)
                """)
            st.bind(1, id)
            StoreRowCoding.bindDigest(digest, 2, st)
            st.bind(3, at.microseconds)
            st.bind(4, try internApp(app))
            try st.run()
        }
    }

    /// One statement: the digest in `applied`, or the current one of the pending or finished row. Three seeks.
    /// (A push asks `pushLookup`, which answers this too.)
    public func isApplied(app: String, id: String, digest: String) throws(StoreError) -> Bool {
        try hasDigest(app: app, id: id, digest: digest, inApplied: true)
    }

    /// Whether `digest` is the pending schedule's or the finished record's of (app, id). Two key lookups.
    private func isCurrent(app: String, id: String, digest: String) throws(StoreError) -> Bool {
        try hasDigest(app: app, id: id, digest: digest, inApplied: false)
    }

    /// `isCurrent`, or also `applied` when `inApplied`: one statement either way.
    private func hasDigest(app: String, id: String, digest: String, inApplied: Bool) throws(StoreError) -> Bool {
        try sql { () throws(SQLiteError) -> Bool in
            let st = try db.statement(inApplied ? """
                SELECT EXISTS(SELECT 1 FROM applied WHERE app = ?1 AND id = ?2 AND digest = ?3)
                    OR EXISTS(SELECT 1 FROM schedules WHERE app = ?1 AND id = ?2 AND digest = ?3)
                    OR EXISTS(SELECT 1 FROM finished WHERE app = ?1 AND id = ?2 AND digest = ?3)
                """ : """
                SELECT EXISTS(SELECT 1 FROM schedules WHERE app = ?1 AND id = ?2 AND digest = ?3)
                    OR EXISTS(SELECT 1 FROM finished WHERE app = ?1 AND id = ?2 AND digest = ?3)
                """)
            defer { st.reset() }
            st.bind(1, try lookupApp(app))
            st.bind(2, id)
            StoreRowCoding.bindDigest(digest, 3, st)
            return try st.step() && st.int64(0) != 0
        }
    }

    @discardableResult
    public func purgeApplied(before cutoff: Instant, limit: Int) throws(StoreError) -> Int {
        try sql { () throws(SQLiteError) -> Int in
            // Oldest first by the age index; ids still pending or finished keep every digest they had.
            let st = try db.statement("""
                DELETE FROM applied WHERE (app, id, digest) IN (SELECT a.app, a.id, a.digest FROM applied AS a
                    WHERE a.applied_at < ?1
                      AND NOT EXISTS(SELECT 1 FROM schedules AS s WHERE s.app = a.app AND s.id = a.id)
                      AND NOT EXISTS(SELECT 1 FROM finished AS f WHERE f.app = a.app AND f.id = a.id)
                    ORDER BY a.applied_at LIMIT ?2)
                """)
            st.bind(1, cutoff.microseconds)
            st.bind(2, Int64(max(0, limit)))
            try st.run()
            return db.changes
        }
    }

    // MARK: Zones

    public func zoneHashes() throws(StoreError) -> [String: String] {
        try sql { () throws(SQLiteError) -> [String: String] in
            let st = try db.statement("SELECT name, content_hash FROM zones")
            defer { st.reset() }
            var hashes: [String: String] = [:]
            while try st.step() { hashes[st.string(0)] = st.string(1) }
            return hashes
        }
    }

    public func setZoneHash(_ name: String, _ hash: String) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("INSERT OR REPLACE INTO zones(name, content_hash) VALUES(?1, ?2)")
            st.bind(1, name)
            st.bind(2, hash)
            try st.run()
        }
    }
}

// Snoozed notifications.
extension SQLiteScheduleStore {
    public func addSnoozed(_ n: DueNotification, until: Instant) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("""
                INSERT INTO snoozed(app, id, until, title, body, urgency, icon, category, actions, data, message_id, \
                due, extras) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
                """)
            st.bind(1, n.app)
            st.bind(2, n.id)
            st.bind(3, until.microseconds)
            st.bind(4, n.title)
            st.bind(5, n.body)
            st.bind(6, StoreCoding.encodeUrgency(n.urgency))
            st.bind(7, n.icon)
            st.bind(8, n.category)
            st.bind(9, StoreCoding.encodeActions(n.actions))
            st.bind(10, n.dataJSON)
            st.bind(11, n.messageId)
            st.bind(12, n.due.microseconds)
            st.bind(13, StoreCoding.encode(extras: n.extras))
            try st.run()
        }
    }

    public func nextSnoozedUntil() throws(StoreError) -> Instant? {
        try sql { () throws(SQLiteError) -> Instant? in
            let st = try db.statement("SELECT min(until) FROM snoozed")
            defer { st.reset() }
            return try st.step() ? st.optionalInt64(0).map(Instant.init(microseconds:)) : nil
        }
    }

    public func snoozed(dueBy now: Instant) throws(StoreError) -> [SnoozedNotification] {
        try sql { () throws(SQLiteError) -> [SnoozedNotification] in
            let st = try db.statement("""
                SELECT seq, app, id, until, title, body, urgency, icon, category, actions, data, message_id, due, extras
                FROM snoozed WHERE until <= ?1 ORDER BY until, seq
                """)
            defer { st.reset() }
            st.bind(1, now.microseconds)
            var rows: [SnoozedNotification] = []
            while try st.step() {
                let id = st.string(2), due = Instant(microseconds: st.int64(12))
                var n = DueNotification(
                    app: st.string(1), id: id, runId: runId(of: id), title: st.string(4), body: st.optionalString(5),
                    urgency: StoreCoding.decodeUrgency(st.int64(6)), icon: st.optionalString(7),
                    category: st.optionalString(8), actions: StoreCoding.decodeActions(st.optionalString(9)),
                    dataJSON: st.optionalString(10), messageId: st.optionalString(11), due: due, at: due, lateSeconds: 0)
                n.extras = StoreCoding.decodeExtras(st.optionalString(13))
                rows.append(SnoozedNotification(seq: st.int64(0), notification: n, until: Instant(microseconds: st.int64(3))))
            }
            return rows
        }
    }

    public func removeSnoozed(seq: Int64) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let st = try db.statement("DELETE FROM snoozed WHERE seq = ?1")
            st.bind(1, seq)
            try st.run()
        }
    }

    @discardableResult
    public func removeSnoozed(app: String, id: String) throws(StoreError) -> Int {
        try sql { () throws(SQLiteError) -> Int in
            let st = try db.statement("DELETE FROM snoozed WHERE app = ?1 AND id = ?2")
            st.bind(1, app)
            st.bind(2, id)
            try st.run()
            return db.changes
        }
    }

    public func snoozedIDs(app: String, run: String) throws(StoreError) -> [String] {
        guard !run.contains(":") else { return [] }
        return try sql { () throws(SQLiteError) -> [String] in
            let st = try db.statement("""
                SELECT DISTINCT id FROM snoozed WHERE app = ?4 AND (id = ?1 OR (id >= ?2 AND id < ?3)) ORDER BY id
                """)
            defer { st.reset() }
            st.bind(1, run)
            st.bind(2, run + ":")
            st.bind(3, run + ";")
            st.bind(4, app)
            var ids: [String] = []
            while try st.step() { ids.append(st.string(0)) }
            return ids
        }
    }
}
