import ScheddBus
import Foundation

/// The answer to one schedule of a push: `{"id","status","next"}`.
public struct PushOutcome: Sendable, Equatable, Decodable {
    public enum Status: String, Sendable, Decodable { case scheduled, replaced, duplicate, cancelled, missed }
    /// The schedule's id, or for a `bk.cancel` line the id or run it names.
    public var id: String?
    public var run: String?
    public var status: Status
    /// When it fires next (nil when it will not).
    public var next: Date?
    /// For a `bk.cancel`: the ids it cancelled.
    public var cancelled: [String]?
    /// For a `wake` (or alarm) schedule: `armed`, or `unavailable` with `wakeReason` (CONTRACT §11).
    public var wake: String?
    /// Why the machine cannot be woken, when `wake` is `unavailable`.
    public var wakeReason: String?

    enum CodingKeys: String, CodingKey { case id, run, status, next, cancelled, wake, wakeReason }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decodeIfPresent(String.self, forKey: .id)
        run = try c.decodeIfPresent(String.self, forKey: .run)
        status = try c.decode(Status.self, forKey: .status)
        next = try c.decodeIfPresent(String.self, forKey: .next).map(instant)
        cancelled = try c.decodeIfPresent([String].self, forKey: .cancelled)
        wake = try c.decodeIfPresent(String.self, forKey: .wake)
        wakeReason = try c.decodeIfPresent(String.self, forKey: .wakeReason)
    }
}

/// One pending schedule (`ListPage` row).
public struct PendingSchedule: Sendable, Equatable, Decodable {
    public var id: String
    public var next: Date
    public var title: String
    /// `at` or `calendar` text as pushed.
    public var trigger: String
    public var zone: String?
    public var cancelOn: [String]

    enum CodingKeys: String, CodingKey { case id, next, title, trigger, zone, cancelOn }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        next = instant(try c.decode(String.self, forKey: .next))
        title = try c.decode(String.self, forKey: .title)
        trigger = (try? c.decode(String.self, forKey: .trigger)) ?? ""
        zone = try? c.decodeIfPresent(String.self, forKey: .zone)
        cancelOn = (try? c.decodeIfPresent([String].self, forKey: .cancelOn)) ?? []
    }
}

/// One history record (`HistoryPage` row): what happened to a schedule and why.
public struct HistoryRecord: Sendable, Equatable, Decodable {
    /// fired, missed, cancelled, replaced, expired, closed, unconfirmed, opened, dismissed, snoozed, failed, unblocked, …
    public var event: String
    public var id: String
    public var at: Date
    public var due: Date?
    public var reason: String?
    /// Seconds late (0 when on time).
    public var late: Double?
    public var title: String?
    public var messageId: String?
    public var data: JSONValue?
    public var app: String?
    /// A `fired` record shown inside its app's summary notification instead of on its own (CONTRACT §11).
    public var folded: Bool

    enum CodingKeys: String, CodingKey { case event, id, at, due, reason, late, title, messageId, data, app, folded }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        event = try c.decode(String.self, forKey: .event)
        id = try c.decode(String.self, forKey: .id)
        at = instant(try c.decode(String.self, forKey: .at))
        due = try c.decodeIfPresent(String.self, forKey: .due).map(instant)
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
        late = try c.decodeIfPresent(Double.self, forKey: .late)
        title = try c.decodeIfPresent(String.self, forKey: .title)
        messageId = try c.decodeIfPresent(String.self, forKey: .messageId)
        data = try c.decodeIfPresent(JSONValue.self, forKey: .data)
        app = try c.decodeIfPresent(String.self, forKey: .app)
        folded = try c.decodeIfPresent(Bool.self, forKey: .folded) ?? false
    }
}

/// One shown notification: the `NotificationShown` payload, the line `--notifier stdout` prints.
public struct ShownNotification: Sendable, Equatable, Decodable {
    public var id: String
    public var run: String?
    public var title: String
    public var body: String?
    public var due: Date
    public var at: Date
    public var late: Double
    public var urgency: String?
    public var app: String?

    enum CodingKeys: String, CodingKey { case id, run, title, body, due, at, late, urgency, app }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        run = try c.decodeIfPresent(String.self, forKey: .run)
        title = try c.decode(String.self, forKey: .title)
        body = try c.decodeIfPresent(String.self, forKey: .body)
        due = instant(try c.decode(String.self, forKey: .due))
        at = instant(try c.decode(String.self, forKey: .at))
        late = (try c.decodeIfPresent(Double.self, forKey: .late)) ?? 0
        urgency = try c.decodeIfPresent(String.self, forKey: .urgency)
        app = try c.decodeIfPresent(String.self, forKey: .app)
    }

    /// Decodes one notifier line.
    public init(json: String) throws {
        self = try JSONDecoder().decode(ShownNotification.self, from: Data(json.utf8))
    }
}

/// The daemon's clock: `{"now","zone","fake"}`.
public struct ClockState: Sendable, Equatable, Decodable {
    public var now: Date
    public var zone: String
    public var fake: Bool

    enum CodingKeys: String, CodingKey { case now, zone, fake }
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        now = instant(try c.decode(String.self, forKey: .now))
        zone = try c.decode(String.self, forKey: .zone)
        fake = try c.decode(Bool.self, forKey: .fake)
    }
}

/// An RFC 3339 instant as schedd prints it (`2026-12-24T17:00:00Z`, fractional seconds when non-zero).
/// An unparsable text is the distant past (the daemon never sends one).
func instant(_ text: String) -> Date {
    let plain = ISO8601DateFormatter()
    if let date = plain.date(from: text) { return date }
    let fractional = ISO8601DateFormatter()
    fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return fractional.date(from: text) ?? .distantPast
}

/// The answer of `Track`, `Cancel` and `CancelRun` (`uasb`): how many schedules were cancelled, and
/// the first of their ids in due order — at most one reply's worth (1,000 ids, 1 MiB), so the answer
/// stays bounded however many were cancelled; `more` says that `ids` is not all of them.
public struct Cancelled: Sendable, Equatable {
    public var count: Int
    public var ids: [String]
    public var more: Bool
    public init(count: Int, ids: [String], more: Bool) { self.count = count; self.ids = ids; self.more = more }

    static func read(_ m: BusMessage) throws(BusError) -> Cancelled {
        let count = try m.readUInt32(), ids = try m.readStrings(), more = try m.readBool()
        return Cancelled(count: Int(count), ids: ids, more: more)
    }
}
