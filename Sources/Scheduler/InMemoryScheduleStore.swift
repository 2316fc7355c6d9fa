import SchedCalendar

/// A `ScheduleStore` in process memory: nothing survives the process. For embedding the engine without a
/// disk and as the reference model the SQLite store is tested against.
///
/// Mirrors `SQLiteScheduleStore` observably: keys are assigned like SQLite rowids (one more than the largest
/// present), orders are the same, and `transaction` restores a snapshot when its body throws.
/// Complexity: lookups by key and id O(1); listing and run/event queries O(n log n).
public final class InMemoryScheduleStore: ScheduleStore {
    private struct State {
        var schedules: [Int64: StoredSchedule] = [:]
        var keyByID: [String: Int64] = [:]
        var tombstones: [TombstoneKind: [String: Instant]] = [:]
        var finished: [String: FinishedSchedule] = [:]
        var metadata: [String: String] = [:]
        var history: [(seq: Int64, record: HistoryRecord, confirmed: Bool)] = []
        var lastHistorySeq: Int64 = 0
        var applied: [String: [String: Instant]] = [:]
        var zoneHashes: [String: String] = [:]
        var failed: [FailedDelivery] = []
        var lastFailedSeq: Int64 = 0
        var snoozed: [SnoozedNotification] = []
        var lastSnoozedSeq: Int64 = 0
    }

    private var state = State()

    /// The key of `id` in `app`'s namespace: NUL cannot occur in an app id (nor in D-Bus strings).
    private static func qualified(_ app: String, _ id: String) -> String { app + "\u{0}" + id }
    private var depth = 0
    /// Seqs handed over and not yet confirmed by a commit (as in `SQLiteScheduleStore`).
    private var confirmThrough: Int64?
    private var closed = false
    public var historyLimitPerApp = HistoryRetention.standard.maxRecords

    public init() {}

    public func close() { closed = true }

    private func checkOpen() throws(StoreError) {
        if closed { throw StoreError(.unavailable, "in-memory store is closed") }
    }

    public func transaction<R>(_ body: () throws(StoreError) -> R) throws(StoreError) -> R {
        try checkOpen()
        if depth > 0 {
            depth += 1
            defer { depth -= 1 }
            return try body()
        }
        let snapshot = state
        depth = 1
        defer { depth = 0 }
        let confirming = confirmThrough
        if let through = confirming {
            for i in state.history.indices where state.history[i].seq <= through { state.history[i].confirmed = true }
        }
        do {
            let result = try body()
            if confirmThrough == confirming { confirmThrough = nil }
            return result
        } catch {
            state = snapshot
            throw error
        }
    }

    public func savepoint<R>(_ body: () throws(StoreError) -> R) throws(StoreError) -> R {
        try checkOpen()
        let snapshot = state
        do { return try body() } catch {
            state = snapshot
            throw error
        }
    }

    /// SQLite's order for schedule lists: (next due, key).
    private func sortedByNext(_ rows: some Sequence<StoredSchedule>) -> [StoredSchedule] {
        rows.sorted { ($0.next, $0.key) < ($1.next, $1.key) }
    }

    // MARK: Schedules

    public func insert(_ schedule: StoredSchedule) throws(StoreError) -> Int64 {
        try checkOpen()
        guard state.keyByID[Self.qualified(schedule.app, schedule.id)] == nil else {
            throw StoreError(.io, "UNIQUE constraint failed: schedules.app, schedules.id")
        }
        var row = schedule
        row.key = (state.schedules.keys.max() ?? 0) + 1  // as SQLite assigns a rowid
        state.schedules[row.key] = row
        state.keyByID[Self.qualified(row.app, row.id)] = row.key
        return row.key
    }

    public func schedule(key: Int64) throws(StoreError) -> StoredSchedule? {
        try checkOpen()
        return state.schedules[key]
    }

    public func schedule(app: String, id: String) throws(StoreError) -> StoredSchedule? {
        try checkOpen()
        return state.keyByID[Self.qualified(app, id)].flatMap { state.schedules[$0] }
    }

    public func pendingSummary(app: String, id: String) throws(StoreError) -> (key: Int64, next: Instant, fingerprint: String)? {
        try schedule(app: app, id: id).map { ($0.key, $0.next, $0.fingerprint) }
    }

    public func pushLookup(app: String, id: String, run: String) throws(StoreError) -> PushLookup {
        let pending = try schedule(app: app, id: id)
        return PushLookup(idTombstoned: state.tombstones[.id]?[Self.qualified(app, id)] != nil,
                          runTombstoned: state.tombstones[.run]?[Self.qualified(app, run)] != nil,
                          pendingKey: pending?.key, pendingNext: pending?.next,
                          pendingFingerprint: pending?.fingerprint,
                          finishedFingerprint: state.finished[Self.qualified(app, id)]?.fingerprint)
    }

    public func delete(_ schedule: StoredSchedule) throws(StoreError) {
        try checkOpen()
        guard let row = state.schedules.removeValue(forKey: schedule.key) else { return }
        state.keyByID[Self.qualified(row.app, row.id)] = nil
        remember(row.app, row.id, row.fingerprint, at: row.next)
    }

    /// A digest that stops being current stays applied (as the SQLite store's triggers keep it).
    private func remember(_ app: String, _ id: String, _ digest: String, at: Instant) {
        let key = Self.qualified(app, id)
        state.applied[key, default: [:]][digest] = max(state.applied[key]?[digest] ?? at, at)
    }

    public func updateNext(key: Int64, next: Instant, lastDue: Instant?) throws(StoreError) {
        try checkOpen()
        state.schedules[key]?.next = next
        state.schedules[key]?.lastDue = lastDue
    }

    public func forEachPendingDeadline(_ body: (Int64, Instant) -> Void) throws(StoreError) {
        try checkOpen()
        for row in state.schedules.values.sorted(by: { $0.key < $1.key }) { body(row.key, row.next) }
    }

    public func pendingBytes(app: String?) throws(StoreError) -> Int {
        try checkOpen()
        return state.schedules.values.reduce(0) { $0 + (app == nil || $1.app == app ? storedBytes(of: $1) : 0) }
    }

    public func storedBytes(of s: StoredSchedule) -> Int {
        StoreRowCoding.storedBytes(s, detail: StoreRowCoding.detail(of: s))
    }

    public func floatingSchedules() throws(StoreError) -> [StoredSchedule] {
        try checkOpen()
        return state.schedules.values.filter(\.floating).sorted { $0.key < $1.key }
    }

    public func pinnedSchedules(zone name: String) throws(StoreError) -> [StoredSchedule] {
        try checkOpen()
        return state.schedules.values.filter { $0.zone == name || $0.untilZone == name }.sorted { $0.key < $1.key }
    }

    public func pinnedZoneNames() throws(StoreError) -> Set<String> {
        try checkOpen()
        return Set(state.schedules.values.flatMap { [$0.zone, $0.untilZone].compactMap { $0 } })
    }

    public func schedules(app: String, run: String) throws(StoreError) -> [StoredSchedule] {
        try checkOpen()
        return sortedByNext(state.schedules.values.filter { $0.app == app && $0.runId == run })
    }

    public func schedules(app: String, cancelOn event: String) throws(StoreError) -> [StoredSchedule] {
        try checkOpen()
        return sortedByNext(state.schedules.values.filter { $0.app == app && $0.cancelOn.contains(event) })
    }

    public func schedulesByNext(app: String?, after cursor: PendingCursor?, limit: Int) throws(StoreError) -> [StoredSchedule] {
        try checkOpen()
        let rows = sortedByNext(state.schedules.values.filter {
            (app == nil || $0.app == app) && (cursor.map($0.cursor.isAfter) ?? true)
        })
        return Array(rows.prefix(max(0, limit)))
    }

    public func schedulesByNext(app: String?, limit: Int?, offset: Int) throws(StoreError) -> [StoredSchedule] {
        try checkOpen()
        let rows = sortedByNext(state.schedules.values.filter { app == nil || $0.app == app }).dropFirst(max(0, offset))
        return Array(limit.map { rows.prefix(max(0, $0)) } ?? rows)
    }

    public func pendingCount(app: String?) throws(StoreError) -> Int {
        try checkOpen()
        return state.schedules.values.reduce(0) { $0 + (app == nil || $1.app == app ? 1 : 0) }
    }

    // MARK: Tombstones

    public func addTombstone(app: String, _ kind: TombstoneKind, _ name: String, at: Instant) throws(StoreError) {
        try checkOpen()
        let key = Self.qualified(app, name)
        state.tombstones[kind, default: [:]][key] = max(state.tombstones[kind]?[key] ?? at, at)
    }

    public func hasTombstone(app: String, _ kind: TombstoneKind, _ name: String) throws(StoreError) -> Bool {
        try checkOpen()
        return state.tombstones[kind]?[Self.qualified(app, name)] != nil
    }

    public func tombstoneCreated(app: String, _ kind: TombstoneKind, _ name: String) throws(StoreError) -> Instant? {
        try checkOpen()
        return state.tombstones[kind]?[Self.qualified(app, name)]
    }

    public func forgetID(app: String, id: String) throws(StoreError) {
        try checkOpen()
        let key = Self.qualified(app, id)
        state.tombstones[.id]?[key] = nil
        state.applied[key] = nil
        state.finished[key] = nil
    }

    public func lastCancel(app: String, id: String) throws(StoreError) -> HistoryRecord? {
        try checkOpen()
        return state.history.last { $0.record.app == app && $0.record.id == id && $0.record.event == .cancelled }?.record
    }

    @discardableResult
    public func purgeTombstones(createdBefore cutoff: Instant) throws(StoreError) -> Int {
        try checkOpen()
        var purged = 0
        for kind in [TombstoneKind.id, .run] {
            let before = state.tombstones[kind]?.count ?? 0
            state.tombstones[kind] = state.tombstones[kind]?.filter { $0.value >= cutoff }
            purged += before - (state.tombstones[kind]?.count ?? 0)
        }
        return purged
    }

    // MARK: Finished, metadata

    public func finished(app: String, id: String) throws(StoreError) -> FinishedSchedule? {
        try checkOpen()
        return state.finished[Self.qualified(app, id)]
    }

    public func recordFinished(_ record: FinishedSchedule) throws(StoreError) {
        try checkOpen()
        if let old = state.finished[Self.qualified(record.app, record.id)], old.fingerprint != record.fingerprint {
            remember(old.app, old.id, old.fingerprint, at: old.finishedAt)
        }
        state.finished[Self.qualified(record.app, record.id)] = record
    }

    @discardableResult
    public func purgeFinished(expiredBy now: Instant) throws(StoreError) -> Int {
        try checkOpen()
        let before = state.finished.count
        for old in state.finished.values where old.keepUntil < now {
            remember(old.app, old.id, old.fingerprint, at: old.finishedAt)
        }
        state.finished = state.finished.filter { $0.value.keepUntil >= now }
        return before - state.finished.count
    }

    public func finishedIDs(app: String, run: String) throws(StoreError) -> [String] {
        try checkOpen()
        return state.finished.values.filter { $0.app == app && runId(of: $0.id) == run && !run.contains(":") }
            .map(\.id).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    public func metadata(_ name: String) throws(StoreError) -> String? {
        try checkOpen()
        return state.metadata[name]
    }

    public func setMetadata(_ name: String, _ value: String) throws(StoreError) {
        try checkOpen()
        state.metadata[name] = value
    }

    // MARK: History, failed deliveries

    public func appendHistory(_ record: HistoryRecord, awaitingHandOver: Bool) throws(StoreError) {
        try checkOpen()
        state.lastHistorySeq += 1
        state.history.append((state.lastHistorySeq, record, !awaitingHandOver))
        // The bound holds in the inserting step: the app's oldest record beyond it goes now.
        if state.history.count > historyLimitPerApp,
           state.history.lazy.filter({ $0.record.app == record.app }).count > historyLimitPerApp,
           let oldest = state.history.firstIndex(where: { $0.record.app == record.app }) {
            state.history.remove(at: oldest)
        }
    }

    public func confirmHandOver() {
        if state.history.contains(where: { !$0.confirmed }) { confirmThrough = state.lastHistorySeq }
    }

    public func markUnconfirmed() throws(StoreError) -> Int {
        try checkOpen()
        var count = 0
        for i in state.history.indices where !state.history[i].confirmed {
            state.history[i].record.event = .unconfirmed
            state.history[i].confirmed = true
            count += 1
        }
        return count
    }

    public func history(app: String?, limit: Int) throws(StoreError) -> [HistoryRecord] {
        try checkOpen()
        return state.history.filter { app == nil || $0.record.app == app }.suffix(max(0, limit)).map(\.record)
    }

    /// Newest first: the records below `before`, walked from the end. O(n) here (the reference model).
    public func history(app: String?, before: Int64?, limit: Int) throws(StoreError) -> [SequencedHistoryRecord] {
        try checkOpen()
        let bound = before ?? Int64.max
        return Array(state.history.reversed().lazy.filter { $0.seq < bound && (app == nil || $0.record.app == app) }
            .prefix(max(0, limit))
            .map { SequencedHistoryRecord(seq: $0.seq, record: $0.record) })
    }

    @discardableResult
    public func purgeHistory(olderThan cutoff: Instant, keepNewest: Int, limit: Int) throws(StoreError) -> Int {
        try checkOpen()
        var count = 0
        while count < limit, let oldest = state.history.first, oldest.record.at < cutoff {
            state.history.removeFirst()
            count += 1
        }
        // Per app: each app's oldest records beyond its newest `keepNewest`.
        var perApp: [String: Int] = [:]
        for entry in state.history { perApp[entry.record.app, default: 0] += 1 }
        var drop = Set<Int64>()
        for entry in state.history where count + drop.count < limit {
            let app = entry.record.app
            if let n = perApp[app], n > keepNewest {
                drop.insert(entry.seq)
                perApp[app] = n - 1
            }
        }
        state.history.removeAll { drop.contains($0.seq) }
        return count + drop.count
    }

    public func reclaimFreePages(limit pages: Int) throws(StoreError) -> Int { try checkOpen(); return 0 }

    public func recordApplied(app: String, id: String, digest: String, at: Instant) throws(StoreError) {
        try checkOpen()
        let key = Self.qualified(app, id)
        state.applied[key, default: [:]][digest] = max(state.applied[key]?[digest] ?? at, at)
    }

    public func isApplied(app: String, id: String, digest: String) throws(StoreError) -> Bool {
        try checkOpen()
        if try schedule(app: app, id: id)?.fingerprint == digest { return true }
        if state.finished[Self.qualified(app, id)]?.fingerprint == digest { return true }
        return state.applied[Self.qualified(app, id)]?[digest] != nil
    }

    @discardableResult
    public func purgeApplied(before cutoff: Instant, limit: Int) throws(StoreError) -> Int {
        try checkOpen()
        var count = 0
        for (id, digests) in state.applied.sorted(by: { $0.key < $1.key })
        where state.keyByID[id] == nil && state.finished[id] == nil {
            for (digest, at) in digests.sorted(by: { $0.key < $1.key }) where at < cutoff && count < limit {
                state.applied[id]?[digest] = nil
                count += 1
            }
            if state.applied[id]?.isEmpty == true { state.applied[id] = nil }
        }
        return count
    }

    public func zoneHashes() throws(StoreError) -> [String: String] {
        try checkOpen()
        return state.zoneHashes
    }

    public func setZoneHash(_ name: String, _ hash: String) throws(StoreError) {
        try checkOpen()
        state.zoneHashes[name] = hash
    }

    public func addFailedDelivery(_ notification: DueNotification, graceSeconds: Int64?, expires: Instant)
        throws(StoreError) {
        try checkOpen()
        state.lastFailedSeq += 1
        var stored = notification
        stored.at = notification.due
        stored.lateSeconds = 0
        state.failed.append(FailedDelivery(seq: state.lastFailedSeq, notification: stored, graceSeconds: graceSeconds,
                                          expires: expires))
    }

    public func failedDeliveries() throws(StoreError) -> [FailedDelivery] {
        try checkOpen()
        return state.failed.sorted { ($0.notification.due, $0.seq) < ($1.notification.due, $1.seq) }
    }

    public func removeFailedDelivery(seq: Int64) throws(StoreError) {
        try checkOpen()
        state.failed.removeAll { $0.seq == seq }
    }

    public func removeFailedDeliveries(app: String, id: String) throws(StoreError) {
        try checkOpen()
        state.failed.removeAll { $0.notification.app == app && $0.notification.id == id }
    }

    public func purgeFailedDeliveries(expiredBy now: Instant, limit: Int) throws(StoreError) -> [FailedDelivery] {
        try checkOpen()
        let victims = Array(state.failed.filter { $0.expires < now }
            .sorted { ($0.expires, $0.seq) < ($1.expires, $1.seq) }.prefix(max(0, limit)))
        let seqs = Set(victims.map(\.seq))
        state.failed.removeAll { seqs.contains($0.seq) }
        return victims
    }

    // MARK: Snoozed

    public func addSnoozed(_ notification: DueNotification, until: Instant) throws(StoreError) {
        try checkOpen()
        state.lastSnoozedSeq += 1
        var stored = notification
        stored.at = notification.due
        stored.lateSeconds = 0
        state.snoozed.append(SnoozedNotification(seq: state.lastSnoozedSeq, notification: stored, until: until))
    }

    public func nextSnoozedUntil() throws(StoreError) -> Instant? {
        try checkOpen()
        return state.snoozed.map(\.until).min()
    }

    public func snoozed(dueBy now: Instant) throws(StoreError) -> [SnoozedNotification] {
        try checkOpen()
        return state.snoozed.filter { $0.until <= now }.sorted { ($0.until, $0.seq) < ($1.until, $1.seq) }
    }

    public func removeSnoozed(seq: Int64) throws(StoreError) {
        try checkOpen()
        state.snoozed.removeAll { $0.seq == seq }
    }

    @discardableResult
    public func removeSnoozed(app: String, id: String) throws(StoreError) -> Int {
        try checkOpen()
        let before = state.snoozed.count
        state.snoozed.removeAll { $0.notification.app == app && $0.notification.id == id }
        return before - state.snoozed.count
    }

    public func snoozedIDs(app: String, run: String) throws(StoreError) -> [String] {
        try checkOpen()
        guard !run.contains(":") else { return [] }
        return Array(Set(state.snoozed.filter { $0.notification.app == app && $0.notification.runId == run }
            .map(\.notification.id))).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
