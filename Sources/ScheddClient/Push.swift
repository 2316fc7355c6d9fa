import Foundation

/// A push built in Swift: a `bk.local` (schedule or re-schedule one notification), a `bk.cancel`, or
/// both (the cancel is applied first). Encodes to the JSON of CONTRACT §1; the daemon checks every rule
/// and rejects a push that breaks one (`ScheddError.Code.invalidPush`, naming the member).
///
/// ```swift
/// let push = Push.local(LocalNotification(id: "run_42:step2", title: "Dinner",
///                                         trigger: .at("2026-12-24T19:00")))
/// ```
public struct Push: Sendable, Equatable {
    public var local: LocalNotification?
    public var cancel: Cancel?
    /// `bk.messageId`: recorded with every history record of the schedule.
    public var messageId: String?

    public init(local: LocalNotification? = nil, cancel: Cancel? = nil, messageId: String? = nil) {
        self.local = local; self.cancel = cancel; self.messageId = messageId
    }

    /// A push that schedules one notification.
    public static func local(_ notification: LocalNotification) -> Push { Push(local: notification) }
    /// A push that cancels one schedule, or a whole run (leaving a tombstone).
    public static func cancel(_ cancel: Cancel) -> Push { Push(cancel: cancel) }

    /// `bk.cancel`.
    public enum Cancel: Sendable, Equatable {
        case id(String)
        case run(String)
    }

    /// The push as JSON text.
    public func json() -> String {
        var bk: [String: JSONValue] = [:]
        if let local { bk["local"] = local.jsonValue }
        switch cancel {
        case .id(let id)?: bk["cancel"] = .object(["id": .string(id)])
        case .run(let run)?: bk["cancel"] = .object(["run": .string(run)])
        case nil: break
        }
        if let messageId { bk["messageId"] = .string(messageId) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(JSONValue.object(["bk": .object(bk)]))) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

/// `bk.local`: one notification, at a wall-clock time or on a calendar.
public struct LocalNotification: Sendable, Equatable {
    /// When it fires.
    public enum Trigger: Sendable, Equatable {
        /// One-shot: `YYYY-MM-DDTHH:MM[:SS]` floats in the device zone (or `timeZone`); with `Z` or
        /// `±HH:MM` it is a fixed instant.
        case at(String)
        /// Repeating: a systemd calendar expression (`Mon..Fri 09:00`, `*-*-01 08:30 Europe/Berlin`),
        /// with no occurrence after `until` when given.
        case calendar(String, until: String? = nil)
    }

    public enum Urgency: String, Sendable { case low, normal, critical }

    /// An action button.
    public struct Action: Sendable, Equatable {
        public var id: String
        public var title: String
        public init(id: String, title: String) { self.id = id; self.title = title }
    }

    public var id: String
    public var title: String
    public var trigger: Trigger
    public var body: String?
    public var timeZone: String?
    public var data: [String: JSONValue]?
    public var cancelOn: [String]?
    public var graceSeconds: Int?
    public var urgency: Urgency?
    public var icon: String?
    public var category: String?
    public var actions: [Action]?
    /// An alarm (CONTRACT §11): shown critical and resident with a sound, Snooze and Dismiss, until the
    /// person answers; never folded into a summary; implies `wake`.
    public var alarm: Bool
    /// Asks schedd to wake the machine for it; the outcome's `wake` says `armed` or `unavailable`.
    public var wake: Bool

    public init(id: String, title: String, trigger: Trigger, body: String? = nil, timeZone: String? = nil,
                data: [String: JSONValue]? = nil, cancelOn: [String]? = nil, graceSeconds: Int? = nil,
                urgency: Urgency? = nil, icon: String? = nil, category: String? = nil, actions: [Action]? = nil,
                alarm: Bool = false, wake: Bool = false) {
        self.id = id; self.title = title; self.trigger = trigger; self.body = body; self.timeZone = timeZone
        self.data = data; self.cancelOn = cancelOn; self.graceSeconds = graceSeconds; self.urgency = urgency
        self.icon = icon; self.category = category; self.actions = actions; self.alarm = alarm; self.wake = wake
    }

    var jsonValue: JSONValue {
        var members: [String: JSONValue] = ["id": .string(id), "title": .string(title)]
        switch trigger {
        case .at(let at): members["at"] = .string(at)
        case .calendar(let spec, let until):
            members["calendar"] = .string(spec)
            if let until { members["until"] = .string(until) }
        }
        if let body { members["body"] = .string(body) }
        if let timeZone { members["timeZone"] = .string(timeZone) }
        if let data { members["data"] = .object(data) }
        if let cancelOn { members["cancelOn"] = .array(cancelOn.map(JSONValue.string)) }
        if let graceSeconds { members["graceSeconds"] = .number(Double(graceSeconds)) }
        if let urgency { members["urgency"] = .string(urgency.rawValue) }
        if let icon { members["icon"] = .string(icon) }
        if let category { members["category"] = .string(category) }
        if alarm { members["alarm"] = .bool(true) }
        if wake { members["wake"] = .bool(true) }
        if let actions {
            members["actions"] = .array(actions.map { .object(["id": .string($0.id), "title": .string($0.title)]) })
        }
        return .object(members)
    }
}
