import SchedCalendar

/// One decoded, validated silent push (CONTRACT §1): what schedd read from its `bk` member.
///
/// Produced only by `PushDecoder`, so every value here already satisfies the contract's rules
/// (lengths, counts, ranges, zone names, calendar grammar). A push holds a cancel, a schedule or both;
/// when both, the cancel is applied first and does not block the schedule of the same push.
public struct Push: Sendable, Hashable {
    /// `bk.cancel`, if present.
    public var cancel: CancelRequest?
    /// `bk.local`, if present.
    public var local: LocalSchedule?
    /// `bk.messageId`, recorded with every history record of the schedule.
    public var messageId: String?
    /// `bk.deepLink`, `bk.action`, `bk.image` (`snoozeSeconds` stays empty here: it is in `local`).
    public var extras: NotificationExtras
    /// Dotted paths of members schedd does not know (`bk.local.colour`), for `schedd push` warnings.
    public var unknownMembers: [String]

    public init(cancel: CancelRequest? = nil, local: LocalSchedule? = nil, messageId: String? = nil,
                extras: NotificationExtras = NotificationExtras(), unknownMembers: [String] = []) {
        self.cancel = cancel; self.local = local; self.messageId = messageId; self.extras = extras
        self.unknownMembers = unknownMembers
    }

    /// What is stored with the schedule: the envelope's extras plus `local`'s snooze durations.
    public var scheduleExtras: NotificationExtras {
        var extras = extras
        extras.snoozeSeconds = local?.snoozeSeconds ?? []
        extras.alarm = local?.alarm ?? false
        extras.wake = local?.wake ?? false
        // An alarm always has a way to snooze it: 10 minutes unless the push names its own durations.
        if extras.alarm && extras.snoozeSeconds.isEmpty { extras.snoozeSeconds = [NotificationExtras.alarmSnoozeSeconds] }
        return extras
    }
}

/// `bk.cancel`: one schedule by id, or every schedule of a run.
public enum CancelRequest: Sendable, Hashable {
    case id(String)
    case run(String)
}

/// A one-shot time as written in `at` or `until`.
public enum OneShotTime: Sendable, Hashable {
    /// `YYYY-MM-DDTHH:MM[:SS]` with no offset: a wall-clock time in `zone` (the `timeZone` member),
    /// or in the device zone when `zone` is nil — re-resolved when the device zone changes.
    case floating(CivilDateTime, zone: String?)
    /// With `Z` or `±HH:MM`: a fixed instant. `offsetSeconds` is kept only for display.
    case fixed(Instant, offsetSeconds: Int)
}

/// What makes a schedule due.
public enum Trigger: Sendable, Hashable {
    /// `at`: fires once.
    case at(OneShotTime)
    /// `calendar`: a systemd.time(7) calendar-event expression, as the sender wrote it
    /// (already checked to parse). A zone suffix in it pins it; otherwise it floats in the device zone.
    case calendar(String)
}

/// `urgency`: the freedesktop urgency levels (sent as the `urgency` byte hint 0, 1, 2).
public enum Urgency: String, Sendable, Hashable, CaseIterable {
    case low, normal, critical
}

/// One action button: `{"id","title"}`.
public struct NotificationAction: Sendable, Hashable {
    public var id: String
    public var title: String
    public init(id: String, title: String) { self.id = id; self.title = title }
}

/// A parsed calendar expression carried beside the text it was parsed from, ignored by `==` and
/// `hash(into:)`: it is derived from the text (and the zone files of the moment), not part of a push.
public struct ParsedCalendar: Sendable, Hashable {
    public var spec: CalendarSpec?
    public init(_ spec: CalendarSpec? = nil) { self.spec = spec }
    public static func == (a: ParsedCalendar, b: ParsedCalendar) -> Bool { true }
    public func hash(into hasher: inout Hasher) {}
}

/// A computed digest carried beside the fingerprint it was computed from, ignored by `==` and
/// `hash(into:)` (derived from the fingerprint, like `ParsedCalendar`).
public struct MemoizedDigest: Sendable, Hashable {
    public var hex: String?
    public init(_ hex: String? = nil) { self.hex = hex }
    public static func == (a: MemoizedDigest, b: MemoizedDigest) -> Bool { true }
    public func hash(into hasher: inout Hasher) {}
}

/// `bk.local`: schedule or re-schedule one notification.
public struct LocalSchedule: Sendable, Hashable {
    /// Sender's stable tag, 1–200 bytes, no control characters.
    public var id: String
    public var trigger: Trigger
    /// With `calendar` only: no occurrence after it.
    public var until: OneShotTime?
    public var title: String
    public var body: String?
    /// `data`, serialized as compact JSON (at most 16 KiB); returned in history.
    public var dataJSON: String?
    public var cancelOn: [String]
    public var graceSeconds: Int64?
    public var urgency: Urgency
    public var icon: String?
    public var category: String?
    public var actions: [NotificationAction]
    /// `snoozeSeconds`: at most 2 distinct durations of 60 s – 7 days, in the order given.
    public var snoozeSeconds: [Int64] = []
    /// `alarm: true` (CONTRACT §11): shown critical, resident, with a sound and snooze/dismiss buttons,
    /// shown again when the server drops it unanswered, never folded.
    public var alarm = false
    /// `wake: true` (implied by `alarm`): schedd arms a wake-capable timer for it (CONTRACT §11 "Wake").
    public var wake = false
    /// With `calendar`: the expression as the decoder parsed it, so that the engine does not parse it a
    /// second time (`Engine.makeSchedule`; ~4% of a bulk load's instructions). Not part of the value.
    public var parsedCalendar = ParsedCalendar()
    /// A canonical serialization of the whole `bk.local` object (keys sorted, compact): two pushes
    /// with equal fingerprints are "the same push" for idempotency (CONTRACT §1). Changing it forgets a
    /// memoized digest.
    public var fingerprint: String { didSet { memoizedDigest = MemoizedDigest() } }
    /// `digest`, once `memoizeDigest()` computed it. Not part of the value.
    public private(set) var memoizedDigest = MemoizedDigest()

    /// The run id: the text before the first `:`, or the whole id when it has none.
    public var runId: String { Scheduler.runId(of: id) }

    /// The digest of `fingerprint` that the store keeps (`StoredSchedule.fingerprint`, the `applied` table):
    /// SHA-256 hex. The memoized value when there is one, else computed on each read, O(fingerprint): the
    /// engine reads it once per push and passes it on. `PushDecoder` never computes it, so that a process
    /// that only checks a push (the CLI's unknown-member warnings) never starts libcrypto — its first digest
    /// costs ~1 ms of provider set-up (BENCHMARKS §3b). The daemon's `Service.decodePush` memoizes it
    /// (`memoizeDigest`), on the decoding thread for a `PushBatch`, so the loop does not hash (~7% of a bulk
    /// load's instructions on the loop, callgrind).
    public var digest: String { memoizedDigest.hex ?? StoreCoding.digest(ofFingerprint: fingerprint) }

    /// Computes `digest` now and keeps it with the value (until `fingerprint` changes). O(fingerprint).
    public mutating func memoizeDigest() { memoizedDigest = MemoizedDigest(StoreCoding.digest(ofFingerprint: fingerprint)) }

    public init(id: String, trigger: Trigger, until: OneShotTime? = nil, title: String, body: String? = nil,
                dataJSON: String? = nil, cancelOn: [String] = [], graceSeconds: Int64? = nil,
                urgency: Urgency = .normal, icon: String? = nil, category: String? = nil,
                actions: [NotificationAction] = [], fingerprint: String) {
        self.id = id; self.trigger = trigger; self.until = until; self.title = title; self.body = body
        self.dataJSON = dataJSON; self.cancelOn = cancelOn; self.graceSeconds = graceSeconds; self.urgency = urgency
        self.icon = icon; self.category = category; self.actions = actions; self.fingerprint = fingerprint
    }
}

/// The run id of a schedule id: the text before the first `:` (U+003A, found by its byte), or the whole id
/// when it has none. `runId(of: "run_42:step2") == "run_42"`; runs match exactly, so `run_4` never covers
/// `run_44:a`.
///
/// Invariant: the store matches a run by bytes (ids in ["R:", "R;"), `ScheduleTable.matching(app:run:)`),
/// so the first `:` is the first colon scalar even when a combining mark follows it: `"r:\u{301}x"` is of
/// run `r`, the run whose cancellation removes it and whose tombstone refuses it. A search by Character
/// would see no `:` there. O(length of the run id).
public func runId(of id: String) -> String {
    guard let colon = id.utf8.firstIndex(of: UInt8(ascii: ":")) else { return id }
    return String(id.unicodeScalars[..<colon])
}

/// An id, run or event name as the store keys it: its UTF-8 bytes. Swift's `String` compares and hashes
/// by canonical equivalence (`"\u{E9}" == "e\u{301}"`), SQLite's BINARY collation by bytes; sets and
/// comparisons of names in memory use this (or `sameName`) so that both agree on what is one schedule.
/// O(length) to make, compare and hash.
public struct StoredName: Hashable, Sendable {
    public let bytes: [UInt8]
    public init(_ text: String) { bytes = Array(text.utf8) }
}

/// Whether `a` and `b` are one name to the store: the same bytes (see `StoredName`). O(length).
public func sameName(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }

/// Whether `id` is of run `run`: `runId(of: id)` is `run` byte for byte (the store's comparison, not
/// Swift's canonical equivalence). A `run` holding `:` has no members. O(length of `run`).
public func isMember(id: String, ofRun run: String) -> Bool {
    let colon = UInt8(ascii: ":")
    var rest = id.utf8.makeIterator()
    for byte in run.utf8 {
        guard byte != colon, rest.next() == byte else { return false }
    }
    let next = rest.next()
    return next == nil || next == colon
}

/// Whether `name` holds a `:` scalar: such a name is no run id, so as a run it covers nothing. By bytes,
/// as `runId(of:)` finds it. O(length).
public func holdsRunSeparator(_ name: String) -> Bool {
    name.utf8.contains(UInt8(ascii: ":"))
}
