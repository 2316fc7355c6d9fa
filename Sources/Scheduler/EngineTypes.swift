import SchedCalendar

/// The answer to one schedule in a push (CONTRACT §6 `schedd push`).
public struct PushOutcome: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable {
        case scheduled, replaced, duplicate, cancelled, missed
    }
    /// The schedule id (for a `bk.cancel` by run: the run id).
    public var id: String
    public var status: Status
    /// The next due instant; nil when nothing is pending.
    public var next: Instant?
    /// For a `bk.cancel`: the ids it cancelled.
    public var cancelled: [String]?
    /// For a `bk.cancel` of a run: cancelled too but not in `cancelled` (a cancellation job's; CancelResult.unlisted).
    public var cancelledUnlisted = 0
    /// For a `bk.cancel`: the ids whose notifications were on screen and were closed.
    public var closed: [String]?
    /// For a `bk.cancel` by run: `id` is the run id (answered as `"run"`).
    public var isRun: Bool
    /// For a schedule with `wake: true` that is pending: whether the machine will be woken for it
    /// (`Engine.wakeCapability`, CONTRACT §11); nil otherwise.
    public var wake: WakeCapability?

    public init(id: String, status: Status, next: Instant?, cancelled: [String]? = nil, closed: [String]? = nil,
                isRun: Bool = false) {
        self.id = id; self.status = status; self.next = next; self.cancelled = cancelled
        self.closed = closed; self.isRun = isRun
    }
}

/// What a cancel did: the pending schedules it cancelled, and the notifications that were on screen
/// and were closed (history `closed`; CONTRACT §7).
public struct CancelResult: Sendable, Hashable {
    public var cancelled: [String]
    public var closed: [String]
    /// Cancelled too, but not listed in `cancelled`: the schedules a cancellation job covers (cancelled in
    /// slices after the answer; Engine_CancelJobs.swift). The count is `cancelled.count + unlisted`.
    public var unlisted = 0
    public init(cancelled: [String], closed: [String]) { self.cancelled = cancelled; self.closed = closed }
}

/// One pending schedule as `schedd list` shows it.
public struct PendingSchedule: Sendable, Hashable {
    /// The app it belongs to.
    public var app: String
    public var id: String
    public var next: Instant
    public var title: String
    /// Human description of the trigger: `at 2026-03-08T19:00` or `calendar Mon..Fri *-*-* 09:00:00`.
    public var trigger: String
    /// The zone it is evaluated in (IANA name); `floating` tells whether it follows the device zone.
    public var zone: String
    public var floating: Bool
    public var cancelOn: [String]
    /// A repeating schedule's latest occurrence that came due (fired or missed); nil before its first.
    public var last: Instant?

    public init(app: String = Engine.defaultApp, id: String, next: Instant, title: String, trigger: String,
                zone: String, floating: Bool, cancelOn: [String], last: Instant? = nil) {
        self.app = app; self.id = id; self.next = next; self.title = title; self.trigger = trigger; self.zone = zone
        self.floating = floating; self.cancelOn = cancelOn; self.last = last
    }
}

/// One history record (CONTRACT §7): every state change of a schedule.
public struct HistoryRecord: Sendable, Hashable {
    public enum Event: String, Sendable, Hashable {
        case fired, cancelled, missed, replaced, opened, dismissed, failed
        /// A firing recorded before its hand-over to the notifier whose hand-over was never confirmed
        /// (the daemon died in between): it may or may not have been shown, and is never shown again.
        case unconfirmed
        /// A repeating schedule whose `until` leaves it no further occurrence (e.g. after a zone change).
        case expired
        /// The person pressed a "Snooze" button: shown again after `reason`'s duration (`snooze:SECONDS`).
        case snoozed
        /// A shown notification still on screen was closed because its schedule was cancelled;
        /// `reason` is the cancel's (`push`, `cli`, `run`, `event:NAME`).
        case closed
        /// An id's own tombstone was lifted (`Unblock`, `schedd add --replace`): later pushes with the id
        /// are judged as new again. `due` nil; `reason` `unblock`.
        case unblocked
    }
    /// The app the schedule belongs to (CONTRACT §8).
    public var app: String
    public var id: String
    public var event: Event
    /// When it happened.
    public var at: Instant
    /// The due instant concerned (for `replaced`: the old due); nil when there was none.
    public var due: Instant?
    /// `push`, `cli`, `run`, `event:NAME`, `action:KEY`, or a failure reason; nil otherwise.
    public var reason: String?
    /// Seconds late (0 when on time); nil for events without a due.
    public var lateSeconds: Double?
    public var title: String?
    public var messageId: String?
    public var dataJSON: String?
    /// For `opened`: what opening ran for the app (`Open(["myapp://item/42"])`, `launch …`, `nothing: …`).
    public var ran: String?
    /// For `opened`: whether what ran worked (the call succeeded, the program started).
    public var ok: Bool?
    /// For `fired`: shown inside its app's summary notification, not on its own (CONTRACT §11 "No flood").
    public var folded = false

    public init(app: String, id: String, event: Event, at: Instant, due: Instant?, reason: String?,
                lateSeconds: Double?, title: String?, messageId: String?, dataJSON: String?) {
        self.app = app; self.id = id; self.event = event; self.at = at; self.due = due; self.reason = reason
        self.lateSeconds = lateSeconds; self.title = title; self.messageId = messageId; self.dataJSON = dataJSON
    }
}

/// How `Engine.advance` treats the interval it moves over.
public enum AdvanceMode: Sendable, Hashable {
    /// Time passing (`clock advance`): everything due fires on time (`at` = due, late 0), in due order,
    /// each repeating occurrence included.
    case timePassing
    /// The real clock or a wall-clock step (`clock set`, NTP, resume): everything due fires at `now`
    /// with its lateness, subject to the grace window (CONTRACT §3); a repeating schedule fires at most
    /// once for all occurrences it missed. A step backwards fires nothing.
    case wallClock
}

/// A failure of the engine: storage (SQLite) or a rejected operation.
public struct EngineError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable, CaseIterable {
        case storage, invalidArgument, notFound
        /// A push would take its app over `Engine.maxPendingPerApp` (CONTRACT §8 "Quota"); nothing was stored.
        case quotaExceeded
    }
    public var kind: Kind
    public var message: String
    /// The store failure behind a `.storage` error (disk full, I/O error…), for callers that tell them apart.
    public var cause: StoreError?
    /// The member of the push the error is about and the rule it broke (then `message` is
    /// `member + ": " + rule`); nil when the error names no member.
    public var member: String?
    public var rule: String?
    public init(_ kind: Kind, _ message: String, cause: StoreError? = nil) {
        self.kind = kind; self.message = message; self.cause = cause
    }
    /// An error about `member` of a push: the message is `member: rule`, both kept as data.
    public init(_ kind: Kind, member: String, rule: String) {
        self.init(kind, member + ": " + rule)
        self.member = member; self.rule = rule
    }
    public var description: String { message }
}
