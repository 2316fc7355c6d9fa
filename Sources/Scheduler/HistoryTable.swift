import SchedCalendar

/// Table `history` (with `payloads`, its shared data): records appended, trimmed per app by count and
/// by the byte quota in the appending transaction, confirmed after their hand-over, purged by retention.
public final class HistoryTable: StoreTable {
    let connection: StoreConnection
    let counts: PendingCounts
    /// The most history records kept per app: `append` removes the app's oldest records beyond it in the
    /// same transaction, so the count is never above it (CONTRACT §5).
    public var limitPerApp = HistoryRetention.standard.maxRecords
    /// The byte quota per app (`Engine.maxBytesPerApp`): `append` removes the app's oldest records while
    /// everything it stores (`PendingCounts.storedTotals(app:).all`) is above it, never the record it appends
    /// (history gives way; CONTRACT §8 "Quota").
    public var maxBytesPerApp = Engine.defaultMaxBytesPerApp
    /// The first history seq appended awaiting its hand-over since the last `confirmHandOver`.
    var awaitingSince: Int64?
    /// The seq of the record `append` appended last (0 before the first).
    public internal(set) var lastAppendedSeq: Int64 = 0
    /// History seqs handed over, to be confirmed by the next transaction that commits.
    var confirmable: ClosedRange<Int64>?

    init(_ connection: StoreConnection, counts: PendingCounts) {
        self.connection = connection
        self.counts = counts
    }

    /// The `ref` of the payload row holding `data`, inserted when new. O(log n) by the hash index.
    /// Shared within `app` only (schema 9): the row counts once against that app's byte quota.
    private func payloadRef(_ data: String, app: String) throws(SQLiteError) -> Int64 {
        let hash = StoreCoding.payloadHash(data)
        let find = try db.statement("SELECT ref FROM payloads WHERE hash = ?1 AND data = ?2 AND app = ?3")
        defer { find.reset() }
        find.bind(1, hash)
        find.bind(2, data)
        find.bind(3, app)
        if try find.step() { return find.int64(0) }
        let insert = try db.statement("INSERT INTO payloads(hash, data, app) VALUES(?1, ?2, ?3)")
        insert.bind(1, hash)
        insert.bind(2, data)
        insert.bind(3, app)
        try insert.run()
        return db.lastInsertRowid
    }

    /// Appends a record. `awaitingHandOver`: a firing recorded before it is handed to the notifier; it stays
    /// unconfirmed until `confirmHandOver` and the next commit after it.
    public func append(_ r: HistoryRecord, awaitingHandOver: Bool = false) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let payload = try r.dataJSON.map { (data) throws(SQLiteError) in try payloadRef(data, app: r.app) }
            let st = try db.statement("""
                INSERT INTO history(id, event, at, due, reason, late, title, message_id, payload, confirmed, app, ran, ok)
                VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
                """)
            st.bind(1, r.id)
            st.bind(2, r.event.rawValue)
            st.bind(3, r.at.microseconds)
            st.bind(4, r.due?.microseconds)
            st.bind(5, r.reason)
            st.bind(6, r.lateSeconds)
            st.bind(7, r.title)
            st.bind(8, r.messageId)
            st.bind(9, payload)
            st.bind(10, Int64(awaitingHandOver ? 0 : 1))
            st.bind(11, r.app)
            st.bind(12, r.ran)
            st.bind(13, r.ok.map { Int64($0 ? 1 : 0) })
            try st.run()
            if awaitingHandOver { awaitingSince = awaitingSince ?? db.lastInsertRowid }
            lastAppendedSeq = db.lastInsertRowid
            try trimHistory(app: r.app)
            try fitHistoryInQuota(app: r.app, keeping: db.lastInsertRowid)
        }
    }

    /// History gives way within the byte quota (CONTRACT §8 "Quota", schema 9): while `app`'s kept total
    /// (`storedTotals`) is above `maxBytesPerApp`, its oldest records go, never the one at `newest` just
    /// appended. Two key lookups when under the bound; O(log n) per record removed otherwise.
    private func fitHistoryInQuota(app: String, keeping newest: Int64) throws(SQLiteError) {
        let totals = try counts.readTotals(app: app)
        try trimHistory(app: app, freeing: totals.all - maxBytesPerApp, sparing: newest)
    }

    /// Deletes `app`'s oldest history records until they held at least `bytes` (or none is left): room for
    /// a write the quota allows only once history has given way. O(log n) per record removed.
    public func makeRoom(app: String, bytes: Int) throws(StoreError) {
        try sql { () throws(SQLiteError) in try trimHistory(app: app, freeing: bytes) }
    }

    /// Removes `app`'s oldest records (never `sparing`) until they held at least `bytes` (or none is left).
    private func trimHistory(app: String, freeing bytes: Int, sparing: Int64? = nil) throws(SQLiteError) {
        guard bytes > 0 else { return }
        // A record frees its own bytes, and its data's once (when no record kept still shares it: assumed).
        let oldest = try db.statement("""
            SELECT seq, payload, \(StoreKeptBytes.historySQL("h.")),
                coalesce((SELECT \(StoreKeptBytes.payloadSQL("")) FROM payloads WHERE ref = h.payload AND app = h.app), 0)
            FROM history AS h WHERE app = ?1 ORDER BY seq
            """)
        oldest.bind(1, app)
        var victims: [(seq: Int64, payload: Int64?)] = [], freed = 0, payloads: Set<Int64> = []
        while freed < bytes, try oldest.step() {
            let seq = oldest.int64(0)
            if seq == sparing { continue }
            let payload = oldest.optionalInt64(1)
            victims.append((seq, payload))
            freed += Int(oldest.int64(2))
            if let payload, payloads.insert(payload).inserted { freed += Int(oldest.int64(3)) }
        }
        oldest.reset()
        try deleteHistory(victims)
    }

    /// Marks the records `seqs` (appended in the current transaction) `folded` (schema step 10). O(k log n).
    public func markFolded(_ seqs: [Int64]) throws(StoreError) {
        guard !seqs.isEmpty else { return }
        try sql { () throws(SQLiteError) in
            let st = try db.statement("UPDATE history SET folded = 1 WHERE seq = ?1")
            for seq in seqs {
                st.bind(1, seq)
                try st.run()
            }
        }
    }

    /// Removes `app`'s oldest records beyond `limitPerApp`, in the caller's transaction: the count
    /// (kept in `history_counts` by the triggers `history_counts_*`) is read by one key lookup, the excess found by a seek on
    /// `history_by_app(app, seq)`. O(log n) per append once at the bound (one record in, one out).
    private func trimHistory(app: String) throws(SQLiteError) {
        let count = try db.statement("SELECT n FROM history_counts WHERE app = ?1")
        count.bind(1, app)
        let n = try count.step() ? count.int64(0) : 0
        count.reset()
        let excess = n - Int64(max(0, limitPerApp))
        guard excess > 0 else { return }
        let oldest = try db.statement("SELECT seq, payload FROM history WHERE app = ?1 ORDER BY seq LIMIT ?2")
        oldest.bind(1, app)
        oldest.bind(2, excess)
        var victims: [(seq: Int64, payload: Int64?)] = []
        while try oldest.step() { victims.append((oldest.int64(0), oldest.optionalInt64(1))) }
        oldest.reset()
        try deleteHistory(victims)
    }

    /// Deletes the records and the payloads no other record shares.
    private func deleteHistory(_ victims: [(seq: Int64, payload: Int64?)]) throws(SQLiteError) {
        let delete = try db.statement("DELETE FROM history WHERE seq = ?1")
        for v in victims {
            delete.bind(1, v.seq)
            try delete.run()
        }
        let orphan = try db.statement("""
            DELETE FROM payloads WHERE ref = ?1 AND NOT EXISTS(SELECT 1 FROM history WHERE payload = ?1)
            """)
        for ref in Set(victims.compactMap(\.payload)) {
            orphan.bind(1, ref)
            try orphan.run()
        }
    }

    /// Every record appended so far has been handed over: the next transaction to commit confirms them
    /// (the confirmation rides on that commit; no commit of its own).
    public func confirmHandOver() {
        guard let first = awaitingSince else { return }
        awaitingSince = nil
        confirmable = (confirmable?.lowerBound ?? first)...max(first, lastHistorySeq())
    }

    /// The largest history seq (0 when empty). O(log n).
    private func lastHistorySeq() -> Int64 {
        guard let st = try? db.statement("SELECT coalesce(max(seq), 0) FROM history") else { return 0 }
        defer { st.reset() }
        return ((try? st.step()) ?? false) ? st.int64(0) : 0
    }

    /// Inside the opening of an outermost transaction: confirms the records handed over since the last commit.
    func writePendingConfirmation() throws(SQLiteError) {
        guard let range = confirmable else { return }
        let st = try db.statement("UPDATE history SET confirmed = 1 WHERE confirmed = 0 AND seq BETWEEN ?1 AND ?2")
        st.bind(1, range.lowerBound)
        st.bind(2, range.upperBound)
        try st.run()
    }

    /// At start, before anything else (inside `SQLiteScheduleStore.markUnconfirmed`'s transaction): every
    /// record still awaiting its hand-over becomes `unconfirmed`. Returns how many.
    func markUnconfirmed() throws(StoreError) -> Int {
        try sql { () throws(SQLiteError) -> Int in
            try db.statement("UPDATE history SET event = 'unconfirmed', confirmed = 1 WHERE confirmed = 0").run()
            return db.changes
        }
    }

    /// The newest `cancelled` record of `id` in `app`, or nil. For an error message, not for a hot path.
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

    /// The newest `limit` records of `app` (nil: of every app), oldest first.
    public func records(app: String?, limit: Int) throws(StoreError) -> [HistoryRecord] {
        try sql { () throws(SQLiteError) -> [HistoryRecord] in
            // Per app by the (app, seq) index; across apps by seq.
            let inner = app == nil ? "SELECT * FROM history ORDER BY seq DESC LIMIT ?1"
                : "SELECT * FROM history WHERE app = ?2 ORDER BY seq DESC LIMIT ?1"
            let st = try db.statement("""
                SELECT h.id, h.event, h.at, h.due, h.reason, h.late, h.title, h.message_id, p.data, h.app, h.ran, h.ok, h.folded
                FROM (\(inner)) AS h LEFT JOIN payloads AS p ON p.ref = h.payload
                ORDER BY h.seq
                """)
            defer { st.reset() }
            st.bind(1, Int64(max(0, limit)))
            if let app { st.bind(2, app) }
            var rows: [HistoryRecord] = []
            while try st.step() {
                var record = HistoryRecord(
                    app: st.string(9), id: st.string(0), event: HistoryRecord.Event(rawValue: st.string(1)) ?? .fired,
                    at: Instant(microseconds: st.int64(2)), due: st.optionalInt64(3).map(Instant.init(microseconds:)),
                    reason: st.optionalString(4), lateSeconds: st.optionalDouble(5), title: st.optionalString(6),
                    messageId: st.optionalString(7), dataJSON: st.optionalString(8))
                record.ran = st.optionalString(10)
                record.ok = st.optionalInt64(11).map { $0 != 0 }
                record.folded = st.optionalInt64(12) == 1
                rows.append(record)
            }
            return rows
        }
    }

    /// At most `limit` records of `app` (nil: of every app) with a sequence number below `before` (all
    /// when nil), newest first, each with its sequence number (append order, ascending, never reused).
    /// A seek on the primary key `seq` (per app: on `history_by_app(app, seq)`): O(log n + limit) at any depth.
    public func records(app: String?, before: Int64?, limit: Int) throws(StoreError) -> [SequencedHistoryRecord] {
        try sql { () throws(SQLiteError) -> [SequencedHistoryRecord] in
            let st = try db.statement("""
                SELECT h.seq, h.id, h.event, h.at, h.due, h.reason, h.late, h.title, h.message_id, p.data, h.app, h.ran, h.ok, h.folded
                FROM history AS h LEFT JOIN payloads AS p ON p.ref = h.payload
                WHERE \(app == nil ? "" : "h.app = ?3 AND ")h.seq < ?1 ORDER BY h.seq DESC LIMIT ?2
                """)
            defer { st.reset() }
            st.bind(1, before ?? Int64.max)
            st.bind(2, Int64(max(0, limit)))
            if let app { st.bind(3, app) }
            var rows: [SequencedHistoryRecord] = []
            while try st.step() {
                var record = HistoryRecord(
                    app: st.string(10), id: st.string(1), event: HistoryRecord.Event(rawValue: st.string(2)) ?? .fired,
                    at: Instant(microseconds: st.int64(3)), due: st.optionalInt64(4).map(Instant.init(microseconds:)),
                    reason: st.optionalString(5), lateSeconds: st.optionalDouble(6), title: st.optionalString(7),
                    messageId: st.optionalString(8), dataJSON: st.optionalString(9))
                record.ran = st.optionalString(11)
                record.ok = st.optionalInt64(12).map { $0 != 0 }
                record.folded = st.optionalInt64(13) == 1
                rows.append(SequencedHistoryRecord(seq: st.int64(0), record: record))
            }
            return rows
        }
    }

    /// Deletes up to `limit` of the oldest records that are older than `cutoff` or beyond the newest
    /// `keepNewest`; returns how many.
    @discardableResult
    public func purge(olderThan cutoff: Instant, keepNewest: Int, limit: Int) throws(StoreError) -> Int {
        try sql { () throws(SQLiteError) -> Int in
            var victims: [(seq: Int64, payload: Int64?)] = []
            // By age: the oldest records (append order) while older than `cutoff`.
            let old = try db.statement("SELECT seq, payload, at FROM history ORDER BY seq LIMIT ?1")
            old.bind(1, Int64(max(0, limit)))
            while try old.step(), old.int64(2) < cutoff.microseconds {
                victims.append((old.int64(0), old.optionalInt64(1)))
            }
            old.reset()
            // By count, per app (CONTRACT §5 "per app"): each app's records beyond its newest `keepNewest`.
            // Apps are visited by seeks on `history_by_app`; the OFFSET scan (O(keepNewest)) runs only for an
            // app whose seq range shows it may hold more than that.
            let nextApp = try db.statement("SELECT app FROM history WHERE app > ?1 ORDER BY app LIMIT 1")
            let range = try db.statement("SELECT min(seq), max(seq) FROM history WHERE app = ?1")
            let over = try db.statement("SELECT seq FROM history WHERE app = ?1 ORDER BY seq DESC LIMIT 1 OFFSET ?2")
            let excess = try db.statement("""
                SELECT seq, payload FROM history WHERE app = ?1 AND seq <= ?2 ORDER BY seq LIMIT ?3
                """)
            var app = ""
            var seen = Set(victims.map(\.seq))
            while victims.count < limit {
                nextApp.bind(1, app)
                guard try nextApp.step() else { nextApp.reset(); break }
                app = nextApp.string(0)
                nextApp.reset()
                range.bind(1, app)
                let (low, high) = try range.step() ? (range.int64(0), range.int64(1)) : (0, 0)
                range.reset()
                guard high - low + 1 > Int64(max(0, keepNewest)) else { continue }
                over.bind(1, app)
                over.bind(2, Int64(max(0, keepNewest)))
                let boundary = try over.step() ? over.int64(0) : 0
                over.reset()
                guard boundary > 0 else { continue }
                excess.bind(1, app)
                excess.bind(2, boundary)
                excess.bind(3, Int64(limit - victims.count))
                while try excess.step() {
                    let seq = excess.int64(0)
                    if seen.insert(seq).inserted { victims.append((seq, excess.optionalInt64(1))) }
                }
                excess.reset()
            }
            guard !victims.isEmpty else { return 0 }
            try deleteHistory(victims)
            return victims.count
        }
    }
}
