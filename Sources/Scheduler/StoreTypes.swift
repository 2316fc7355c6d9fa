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

/// A notification the person snoozed, waiting to be shown again at `until`.
public struct SnoozedNotification: Sendable, Hashable {
    public var seq: Int64
    public var notification: DueNotification
    public var until: Instant
}
