import SchedCalendar
import Scheduler

/// The JSON shapes of CONTRACT §6/§7, shared by the D-Bus replies and the CLI's `--json` output.
extension JSONValue {
    /// An instant as RFC 3339 UTC text, or null.
    public static func instant(_ value: Instant?) -> JSONValue { value.map { .string($0.rfc3339) } ?? .null }

    /// A member holding raw JSON text (already serialized by the engine), or null when absent.
    public static func embedded(_ text: String?) -> JSONValue {
        guard let text, let value = try? JSONValue.parse(text) else { return .null }
        return value
    }

    /// `{"id","status","next"}`; a `bk.cancel` line is `{"id"|"run","status":"cancelled","next":null,
    /// "cancelled":[ids],"closed":[ids]}` (CONTRACT §7: `run` for a run cancel).
    public init(outcome: PushOutcome) {
        var budget = IDBudget()
        self.init(outcome: outcome, budget: &budget)
    }

    /// `init(outcome:)` listing at most what is left of `budget` (shared by every outcome of one reply).
    public init(outcome: PushOutcome, budget: inout IDBudget) {
        var members = [JSONMember(outcome.isRun ? "run" : "id", .string(outcome.id)),
                       JSONMember("status", .string(outcome.status.rawValue)), JSONMember("next", .instant(outcome.next))]
        if let cancelled = outcome.cancelled {
            members += Self.boundedIDs("cancelled", cancelled, more: "more", unlisted: outcome.cancelledUnlisted, budget: &budget)
        }
        if let closed = outcome.closed { members += Self.boundedIDs("closed", closed, more: "closedMore", budget: &budget) }
        if let wake = outcome.wake {
            members.append(JSONMember("wake", .string(wake.word)))
            if let reason = wake.reason { members.append(JSONMember("wakeReason", .string(reason))) }
        }
        self = .object(members)
    }

    /// `JSONValue(outcome:budget:)` serialized compactly, appended to `out`. The usual outcome (no
    /// cancel lists, so nothing taken from `budget`) is written without building the value: a Push
    /// answers one per call.
    public static func writeOutcome(_ outcome: PushOutcome, budget: inout IDBudget, into out: inout [UInt8]) {
        guard outcome.cancelled == nil && outcome.closed == nil && outcome.wake == nil else {
            return JSONValue(outcome: outcome, budget: &budget).write(into: &out, sortedKeys: false)
        }
        out.append(contentsOf: (outcome.isRun ? #"{"run":"# : #"{"id":"#).utf8)
        writeString(outcome.id, into: &out)
        out.append(contentsOf: #","status":"#.utf8)
        writeString(outcome.status.rawValue, into: &out)
        out.append(contentsOf: #","next":"#.utf8)
        if let next = outcome.next {
            // RFC 3339 is ASCII digits and `-:.TZ`: nothing to escape, so written in place, quoted.
            out.append(UInt8(ascii: "\""))
            next.appendRFC3339(to: &out)
            out.append(UInt8(ascii: "\""))
        } else {
            out.append(contentsOf: "null".utf8)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// A cancel's answer: `{"id"|"run", "cancelled":[ids], "closed":[ids]}` (`closed`: the notifications
    /// that were on screen and were closed).
    /// Bounded (CONTRACT §9): each list holds at most `ReplyBounds.maxRows` ids and `maxBytes` bytes;
    /// when ids were left out, `"more": N` (cancelled) and `"closedMore": N` say how many.
    public init(cancel result: CancelResult, name: String, byRun: Bool) {
        var members = [JSONMember(byRun ? "run" : "id", .string(name))]
        members += Self.boundedIDs("cancelled", result.cancelled, more: "more", unlisted: result.unlisted)
        members += Self.boundedIDs("closed", result.closed, more: "closedMore")
        self = .object(members)
    }

    /// `key: [ids]` with at most one reply's worth of ids, and `more: N` when N were left out.
    /// `unlisted`: more ids left out beyond `ids` (a cancellation job's), counted in `more`.
    public static func boundedIDs(_ key: String, _ ids: [String], more: String, unlisted: Int = 0) -> [JSONMember] {
        var budget = IDBudget()
        return boundedIDs(key, ids, more: more, unlisted: unlisted, budget: &budget)
    }

    /// `boundedIDs` listing at most what is left of `budget`, and taking it.
    public static func boundedIDs(_ key: String, _ ids: [String], more: String, unlisted: Int = 0,
                                  budget: inout IDBudget) -> [JSONMember] {
        let listed = boundedPrefix(ids, maxRows: budget.rows, maxBytes: budget.bytes)
        budget.rows -= listed
        budget.bytes -= ids.prefix(listed).reduce(0) { $0 + $1.utf8.count + 1 }
        var members = [JSONMember(key, .array(ids.prefix(listed).map(JSONValue.string)))]
        let left = ids.count - listed + unlisted
        if left > 0 { members.append(JSONMember(more, .number(String(left)))) }
        return members
    }

    /// `{"id","next","title","trigger","zone","floating","cancelOn","app"}`.
    public init(pending: PendingSchedule) {
        self = .object([
            JSONMember("id", .string(pending.id)), JSONMember("next", .instant(pending.next)),
            JSONMember("title", .string(pending.title)), JSONMember("trigger", .string(pending.trigger)),
            JSONMember("zone", .string(pending.zone)), JSONMember("floating", .bool(pending.floating)),
            JSONMember("cancelOn", .array(pending.cancelOn.map(JSONValue.string))),
            JSONMember("app", .string(pending.app)), JSONMember("last", .instant(pending.last)),
        ])
    }

    /// `{"id","event","at","due","reason","late","title","messageId","data","app"}` (+ `"ran","ok"` for an
    /// `opened` that ran something for the app).
    public init(history record: HistoryRecord) {
        var members: [JSONMember] = [
            JSONMember("id", .string(record.id)), JSONMember("event", .string(record.event.rawValue)),
            JSONMember("at", .instant(record.at)), JSONMember("due", .instant(record.due)),
            JSONMember("reason", .optional(record.reason)),
            JSONMember("late", record.lateSeconds.map(JSONValue.double) ?? .null),
            JSONMember("title", .optional(record.title)), JSONMember("messageId", .optional(record.messageId)),
            JSONMember("data", .embedded(record.dataJSON)),
            JSONMember("app", .string(record.app)),
        ]
        if let ran = record.ran { members.append(JSONMember("ran", .string(ran))) }
        if let ok = record.ok { members.append(JSONMember("ok", .bool(ok))) }
        if record.folded { members.append(JSONMember("folded", .bool(true))) }
        self = .object(members)
    }

    /// The stdout notifier's line and the NotificationShown signal's payload:
    /// `{"id","run","title","body","due","at","late","urgency",…}` (an alarm: `"alarm":true`, urgency critical).
    public init(shown n: DueNotification) {
        var members = [
            JSONMember("id", .string(n.id)), JSONMember("run", .string(n.runId)), JSONMember("title", .string(n.title)),
            JSONMember("body", .optional(n.body)), JSONMember("due", .instant(n.due)), JSONMember("at", .instant(n.at)),
            JSONMember("late", .double(n.lateSeconds)),
            JSONMember("urgency", .string((n.extras.alarm ? Urgency.critical : n.urgency).rawValue)),
            JSONMember("app", .string(n.app)),
        ]
        if n.extras.alarm { members.append(JSONMember("alarm", .bool(true))) }
        if n.extras.wake { members.append(JSONMember("wake", .bool(true))) }
        if let icon = n.icon { members.append(JSONMember("icon", .string(icon))) }
        if let category = n.category { members.append(JSONMember("category", .string(category))) }
        if !n.actions.isEmpty {
            members.append(JSONMember("actions", .array(n.actions.map {
                .object([JSONMember("id", .string($0.id)), JSONMember("title", .string($0.title))])
            })))
        }
        if let messageId = n.messageId { members.append(JSONMember("messageId", .string(messageId))) }
        if let data = n.dataJSON { members.append(JSONMember("data", .embedded(data))) }
        if let link = n.extras.deepLink { members.append(JSONMember("deepLink", .string(link))) }
        if let action = n.extras.action {
            var a = [JSONMember("name", .string(action.name))]
            if let data = action.dataJSON { a.append(JSONMember("data", .embedded(data))) }
            members.append(JSONMember("action", .object(a)))
        }
        if let image = n.extras.image { members.append(JSONMember("image", .string(image))) }
        if !n.extras.snoozeSeconds.isEmpty {
            members.append(JSONMember("snoozeSeconds", .array(n.extras.snoozeSeconds.map { .number(String($0)) })))
        }
        self = .object(members)
    }
}

/// The ids one reply may still list (CONTRACT §9: `ReplyBounds`), shared by every list of the reply: a
/// PushBatch whose entries each cancel a large run lists at most one page's worth of ids in all.
public struct IDBudget: Sendable {
    public var rows = ReplyBounds.maxRows
    public var bytes = ReplyBounds.maxBytes
    public init() {}
}
