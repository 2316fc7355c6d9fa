import SchedCalendar

/// A failure of the schedule store: the database could not be opened, read or written.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable, CaseIterable {
        /// The file is not a SQLite database, fails its integrity check, or has an unknown schema.
        case corrupt
        /// The file or its directory cannot be created, opened or read.
        case unavailable
        /// A statement failed (disk full, I/O error…).
        case io
    }
    public var kind: Kind
    public var message: String
    /// The SQLite result code behind the failure, as a value (nil when SQLite did not fail: a schema
    /// check, a path that cannot be created, an engine error carried through a transaction).
    public var sqliteCode: SQLiteResultCode?
    /// Set when an engine error crossed a store transaction body: the engine rethrows it whole, with
    /// its own kind and cause.
    public var carried: EngineError? { carriedError?.error }
    private var carriedError: Carried?
    /// The carried engine error's kind.
    var engineKind: EngineError.Kind? { carried?.kind }

    public init(_ kind: Kind, _ message: String, sqliteCode: SQLiteResultCode? = nil) {
        self.kind = kind; self.message = message; self.sqliteCode = sqliteCode
    }
    init(_ kind: Kind, _ error: SQLiteError) {
        self.init(kind, error.description, sqliteCode: SQLiteResultCode(error.code))
    }
    /// Carries `error` through a transaction body (which may only throw `StoreError`).
    init(carrying error: EngineError) {
        self.init(.io, error.message)
        carriedError = .engine(error)
    }
    public var description: String { message }

    /// An engine error inside a store error (which an engine error may hold as its cause): indirect.
    private indirect enum Carried: Sendable {
        case engine(EngineError)
        var error: EngineError { switch self { case .engine(let e): e } }
    }
}

/// A SQLite result code (extended, as `sqlite3_extended_errcode` gives it), kept as a value so that
/// callers tell failures apart without parsing messages (e.g. the daemon's ERRNO= for systemd).
public struct SQLiteResultCode: Sendable, Hashable, CustomStringConvertible {
    public var rawValue: Int32
    public init(_ rawValue: Int32) { self.rawValue = rawValue }
    /// The primary code (the low byte): `SQLITE_IOERR_WRITE` (778) is `SQLITE_IOERR` (10).
    public var primary: SQLiteResultCode { SQLiteResultCode(rawValue & 0xFF) }
    public static let noMemory = SQLiteResultCode(7)
    public static let readOnly = SQLiteResultCode(8)
    public static let ioError = SQLiteResultCode(10)
    public static let corrupt = SQLiteResultCode(11)
    public static let full = SQLiteResultCode(13)
    public static let cannotOpen = SQLiteResultCode(14)
    public static let notADatabase = SQLiteResultCode(26)
    public var description: String { "SQLite result code \(rawValue)" }
}

/// How a stored schedule becomes due.
public enum StoredTriggerKind: Int64, Sendable, Hashable {
    /// `at` with `Z`/`±HH:MM`: a fixed instant.
    case fixedAt = 0
    /// `at` without offset: a wall time in `zone` (nil = the device zone).
    case floatingAt = 1
    /// `calendar`: a systemd calendar expression; pinned when `zone` is set.
    case calendar = 2
}

/// One pending schedule as kept in the store. `key` is the SQLite rowid and the timer-wheel key.
public struct StoredSchedule: Sendable, Hashable {
    /// The rowid; 0 until inserted.
    public var key: Int64
    /// The app it belongs to (CONTRACT §8): ids, runs and events are per app.
    public var app: String
    public var id: String
    public var kind: StoredTriggerKind
    /// The calendar expression as sent (`calendar` only).
    public var spec: String?
    /// The instant and its display offset (`fixedAt` only).
    public var atInstant: Instant?
    public var atOffset: Int?
    /// The wall time (`floatingAt` only).
    public var wall: CivilDateTime?
    /// The pinned zone (`timeZone`, or a calendar's zone suffix); nil when it follows the device zone.
    public var zone: String?
    /// `until` (calendar only): a fixed instant, or a wall time in `untilZone` (nil = the schedule's zone).
    public var untilInstant: Instant?
    public var untilWall: CivilDateTime?
    public var untilZone: String?
    /// The next due instant (the wheel's deadline for `key`).
    public var next: Instant
    /// The last occurrence that fired or was missed (repeating schedules); nil before the first.
    public var lastDue: Instant?
    public var title: String
    public var body: String?
    public var dataJSON: String?
    public var cancelOn: [String]
    public var graceSeconds: Int64?
    public var urgency: Urgency
    public var icon: String?
    public var category: String?
    public var actions: [NotificationAction]
    public var messageId: String?
    /// The digest of the push that made it (`LocalSchedule.digest`), for idempotency.
    public var fingerprint: String
    /// When the push was stored: the base of a calendar's or floating `at`'s re-resolution. Not kept for a
    /// fixed `at` (nothing reads it there): the SQLite store reads it back as `next` (schema v6).
    public var storedAt: Instant
    /// `bk.deepLink`, `bk.action`, `bk.image`, `snoozeSeconds`.
    public var extras = NotificationExtras()

    /// Whether the schedule follows the device zone.
    public var floating: Bool { kind != .fixedAt && zone == nil }
    public var runId: String { Scheduler.runId(of: id) }
}

/// What a tombstone blocks: one id, or every id of a run.
public enum TombstoneKind: Int64, Sendable, Hashable {
    case id = 0
    case run = 1
}

/// A schedule that is over: a one-shot that fired or was missed, or a calendar with no further occurrence.
/// Kept so that the same push delivered again is answered `duplicate` and shows nothing.
public struct FinishedSchedule: Sendable, Hashable {
    public var app: String
    public var id: String
    public var fingerprint: String
    /// `fired` or `missed`.
    public var outcome: HistoryRecord.Event
    public var due: Instant?
    public var finishedAt: Instant
    /// Kept at least until then: the later of finishedAt + the tombstone retention and due + grace, so a
    /// redelivery after purging is necessarily late beyond its grace (answered `missed`, shows nothing).
    public var keepUntil: Instant
    public var title: String?
    public var messageId: String?
    public var dataJSON: String?
}

/// A notification the notifier could not deliver, waiting for `Engine.retryFailed`.
public struct FailedDelivery: Sendable, Hashable {
    public var seq: Int64
    public var notification: DueNotification
    public var graceSeconds: Int64?
    /// The end of its grace: past it, the delivery is dropped by maintenance (it would only be `missed`).
    public var expires: Instant
}

/// Everything `Engine.push` must know about an id before deciding, read in one statement.
public struct PushLookup: Sendable, Hashable {
    public var idTombstoned: Bool
    public var runTombstoned: Bool
    /// The pending schedule with this id, if any.
    public var pending: (key: Int64, next: Instant, fingerprint: String)? {
        pendingKey.map { ($0, pendingNext ?? Instant(microseconds: 0), pendingFingerprint ?? "") }
    }
    var pendingKey: Int64?
    var pendingNext: Instant?
    var pendingFingerprint: String?
    /// The fingerprint of the finished schedule with this id, if any.
    public var finishedFingerprint: String?
    /// Whether the push's digest is among the no-longer-current digests of `id` (`applied`, schema v6). With
    /// the two fingerprints above this answers `isApplied` without another statement.
    public var digestInApplied = false

    /// Whether `digest` was applied before: `isApplied` from this one lookup.
    public func isApplied(digest: String) -> Bool {
        digestInApplied || pendingFingerprint == digest || finishedFingerprint == digest
    }
}

/// Durable storage behind the engine (STYLE.md §1: one seam per backend).
///
/// Every method runs inside the current transaction when one is open, else in its own. Not thread-safe.
/// Implementation: `SQLiteScheduleStore` (durable). There is deliberately one: a second (in-memory) store
/// drifted from it with every schema step and was removed (docs/testing.md, "One store").
public protocol ScheduleStore: CancelJobStore {
    /// Runs `body` in one transaction, committed durably before this returns; rolled back when it throws.
    /// Nested calls join the outermost transaction (group commit for batches).
    func transaction<R>(_ body: () throws(StoreError) -> R) throws(StoreError) -> R
    /// Inside a transaction: runs `body`; when it throws, undoes exactly what `body` changed (SQLite
    /// `SAVEPOINT … ROLLBACK TO`) and rethrows, leaving the rest of the transaction intact.
    func savepoint<R>(_ body: () throws(StoreError) -> R) throws(StoreError) -> R

    // Schedules
    func insert(_ schedule: StoredSchedule) throws(StoreError) -> Int64
    func schedule(key: Int64) throws(StoreError) -> StoredSchedule?
    func schedule(app: String, id: String) throws(StoreError) -> StoredSchedule?
    /// The key, next due and fingerprint of the pending schedule with `id` (cheaper than `schedule(id:)`).
    func pendingSummary(app: String, id: String) throws(StoreError) -> (key: Int64, next: Instant, fingerprint: String)?
    /// Tombstones of `id` and of `run`, the pending schedule and the finished record of `id`, and whether
    /// `digest` is in `applied`, at once.
    func pushLookup(app: String, id: String, run: String, digest: String) throws(StoreError) -> PushLookup
    func delete(_ schedule: StoredSchedule) throws(StoreError)
    func updateNext(key: Int64, next: Instant, lastDue: Instant?) throws(StoreError)
    /// Calls `body` with every pending (key, next due), streamed (nothing collected): what the wheel is
    /// rebuilt from. O(n) time, O(1) memory in SQLite.
    func forEachPendingDeadline(_ body: (Int64, Instant) -> Void) throws(StoreError)
    /// Pending schedules that follow the device zone.
    func floatingSchedules() throws(StoreError) -> [StoredSchedule]
    /// Pending schedules of run `run` of `app` (ids equal to it or starting with `run:`).
    func schedules(app: String, run: String) throws(StoreError) -> [StoredSchedule]
    /// Pending schedules of `app` whose cancelOn holds `event`.
    func schedules(app: String, cancelOn event: String) throws(StoreError) -> [StoredSchedule]
    /// Pending schedules of `app` (nil: of every app) ordered by (next due, key). O(offset + limit): for
    /// the legacy `List` only.
    func schedulesByNext(app: String?, limit: Int?, offset: Int) throws(StoreError) -> [StoredSchedule]
    /// At most `limit` pending schedules of `app` (nil: of every app) ordered by (next due, key), starting
    /// just after `cursor` (from the first when nil). A keyset seek: O(log n + limit), whatever the depth.
    func schedulesByNext(app: String?, after cursor: PendingCursor?, limit: Int) throws(StoreError) -> [StoredSchedule]
    /// Number of pending schedules of `app` (nil: of every app; the quota, CONTRACT §8). O(log apps) in SQLite (a count kept by
    /// triggers), O(n) in memory.
    func pendingCount(app: String?) throws(StoreError) -> Int
    /// The bytes the pending schedules of `app` (nil: of every app) hold, as `storedBytes` counts them
    /// (the byte quota, CONTRACT §8). Kept like `pendingCount`.
    func pendingBytes(app: String?) throws(StoreError) -> Int
    /// `pendingCount` and `pendingBytes` from one read of the kept totals.
    func pendingTotals(app: String?) throws(StoreError) -> (count: Int, bytes: Int)
    /// Everything `app` stores, as the byte quota counts it (schema 9): two key lookups.
    func storedTotals(app: String) throws(StoreError) -> StoredTotals
    /// Deletes `app`'s oldest history records until they held at least `bytes` (or none is left).
    func makeRoomInHistory(app: String, bytes: Int) throws(StoreError)
    /// What `schedule` would add to its app's `pendingBytes`: the UTF-8 bytes of its id and texts plus a
    /// fixed overhead per row. O(size of the schedule).
    func storedBytes(of schedule: StoredSchedule) -> Int
    /// Pending schedules pinned to zone `name` (by `timeZone`/suffix or their `until`'s zone). O(n).
    func pinnedSchedules(zone name: String) throws(StoreError) -> [StoredSchedule]
    /// Every zone name pending schedules are pinned to (their zone or `until` zone). O(n).
    func pinnedZoneNames() throws(StoreError) -> Set<String>

    // Applied pushes (CONTRACT §1: a push applied once is `duplicate` whatever came after it)
    func recordApplied(app: String, id: String, digest: String, at: Instant) throws(StoreError)
    func isApplied(app: String, id: String, digest: String) throws(StoreError) -> Bool
    /// Deletes up to `limit` digests applied before `cutoff` whose id is neither pending nor finished.
    @discardableResult func purgeApplied(before cutoff: Instant, limit: Int) throws(StoreError) -> Int

    // Tombstones
    func addTombstone(app: String, _ kind: TombstoneKind, _ name: String, at: Instant) throws(StoreError)
    func hasTombstone(app: String, _ kind: TombstoneKind, _ name: String) throws(StoreError) -> Bool
    /// When the tombstone was left (the latest cancel's time), or nil when there is none. O(log n).
    func tombstoneCreated(app: String, _ kind: TombstoneKind, _ name: String) throws(StoreError) -> Instant?
    /// Makes `id` of `app` new again: removes its id tombstone, its applied digests and its finished
    /// record, so that a push under it is judged as if none had come before. O(log n + digests of id).
    func forgetID(app: String, id: String) throws(StoreError)
    /// The newest `cancelled` history record of `id` in `app`, or nil. O(history of the app): for an
    /// error message, not for a hot path.
    func lastCancel(app: String, id: String) throws(StoreError) -> HistoryRecord?
    /// Deletes tombstones created before `cutoff`; returns how many.
    @discardableResult func purgeTombstones(createdBefore cutoff: Instant) throws(StoreError) -> Int

    // Finished schedules
    func finished(app: String, id: String) throws(StoreError) -> FinishedSchedule?
    func recordFinished(_ record: FinishedSchedule) throws(StoreError)
    /// Deletes finished records whose `keepUntil` is before `now`; returns how many.
    @discardableResult func purgeFinished(expiredBy now: Instant) throws(StoreError) -> Int

    /// Ids of finished schedules of run `run` (the same id range as `schedules(run:)`).
    func finishedIDs(app: String, run: String) throws(StoreError) -> [String]

    // Metadata
    func metadata(_ name: String) throws(StoreError) -> String?
    func setMetadata(_ name: String, _ value: String) throws(StoreError)

    // Zones in use and the content hash each had when schedules were last resolved in it
    func zoneHashes() throws(StoreError) -> [String: String]
    func setZoneHash(_ name: String, _ hash: String) throws(StoreError)

    // History (appended; trimmed by retention)
    /// The most history records kept per app: `appendHistory` removes the app's oldest records beyond it in
    /// the same transaction, so the count is never above it (CONTRACT §5).
    var historyLimitPerApp: Int { get set }
    /// The byte quota per app: `appendHistory` removes the app's oldest records while everything the app
    /// stores (`storedTotals(app:).all`) is above it, never the record it appends.
    var maxBytesPerApp: Int { get set }
    /// Appends a record. `awaitingHandOver`: a firing recorded before it is handed to the notifier; it stays
    /// unconfirmed until `confirmHandOver` and the next commit after it.
    func appendHistory(_ record: HistoryRecord, awaitingHandOver: Bool) throws(StoreError)
    /// The sequence number of the record `appendHistory` appended last (0 before the first).
    var lastAppendedSeq: Int64 { get }
    /// Marks records appended in the current transaction as folded into a summary (CONTRACT §11).
    func markFolded(_ seqs: [Int64]) throws(StoreError)
    /// The earliest `next` of a pending schedule whose extras ask to wake the machine (`wake: true`),
    /// nil when none. One seek on the partial index `schedules_wake` (schema step 9).
    func earliestWake() throws(StoreError) -> Instant?
    /// Every record appended so far has been handed over: the next transaction to commit confirms them
    /// (the confirmation rides on that commit; no commit of its own).
    func confirmHandOver()
    /// At start, before anything else: every record still awaiting its hand-over becomes `unconfirmed`
    /// (the previous process died before it knew). Returns how many.
    func markUnconfirmed() throws(StoreError) -> Int
    /// The newest `limit` records of `app` (nil: of every app), oldest first.
    func history(app: String?, limit: Int) throws(StoreError) -> [HistoryRecord]
    /// At most `limit` records of `app` (nil: of every app) with a sequence number below `before` (all
    /// when nil), newest first, each with its sequence number (append order, ascending, never reused).
    /// O(log n + limit) (per app by the (app, seq) index).
    func history(app: String?, before: Int64?, limit: Int) throws(StoreError) -> [SequencedHistoryRecord]

    /// Deletes up to `limit` of the oldest records that are older than `cutoff` or beyond the newest
    /// `keepNewest`; returns how many.
    @discardableResult func purgeHistory(olderThan cutoff: Instant, keepNewest: Int, limit: Int) throws(StoreError) -> Int

    /// Returns up to `pages` free pages to the file system (incremental auto-vacuum); how many were freed.
    @discardableResult func reclaimFreePages(limit pages: Int) throws(StoreError) -> Int

    // Failed deliveries
    func addFailedDelivery(_ notification: DueNotification, graceSeconds: Int64?, expires: Instant) throws(StoreError)
    /// Deletes up to `limit` failed deliveries whose grace ended before `now` (oldest expiry first);
    /// returns them.
    func purgeFailedDeliveries(expiredBy now: Instant, limit: Int) throws(StoreError) -> [FailedDelivery]
    func failedDeliveries() throws(StoreError) -> [FailedDelivery]
    func removeFailedDelivery(seq: Int64) throws(StoreError)
    func removeFailedDeliveries(app: String, id: String) throws(StoreError)

    // Snoozed notifications (CONTRACT §8 "Snooze"), shown again at `until`
    func addSnoozed(_ notification: DueNotification, until: Instant) throws(StoreError)
    /// The earliest `until` of any snoozed notification. O(log n).
    func nextSnoozedUntil() throws(StoreError) -> Instant?
    /// Snoozed notifications with `until` ≤ `now`, earliest first.
    func snoozed(dueBy now: Instant) throws(StoreError) -> [SnoozedNotification]
    func removeSnoozed(seq: Int64) throws(StoreError)
    /// Removes the snoozed notifications of `app`'s `id`; returns how many.
    @discardableResult func removeSnoozed(app: String, id: String) throws(StoreError) -> Int
    /// Ids of `app`'s snoozed notifications of run `run`.
    func snoozedIDs(app: String, run: String) throws(StoreError) -> [String]

    /// Releases the database. Further calls fail.
    func close()
}

/// A notification the person snoozed, waiting to be shown again at `until`.
public struct SnoozedNotification: Sendable, Hashable {
    public var seq: Int64
    public var notification: DueNotification
    public var until: Instant
}

extension ScheduleStore {
    /// Appends a record that needs no hand-over confirmation.
    public func appendHistory(_ record: HistoryRecord) throws(StoreError) {
        try appendHistory(record, awaitingHandOver: false)
    }
}
