import Scheduler

/// How an alarm (`bk.local.alarm: true`, CONTRACT §11 "Alarms") is shown, on top of `NotifyRequest`'s
/// usual mapping, and what a server that cannot show all of it gets instead.
///
/// | what | on the wire |
/// |---|---|
/// | urgency | the `urgency` hint 2 (critical), whatever the push said; `expire_timeout` 0 (never expires) |
/// | stays on screen | the `resident` hint `true` (the server keeps it after an action) |
/// | sound | the `sound-name` hint `alarm-clock-elapsed` (freedesktop sound naming spec) |
/// | category | `x-schedd.alarm` (the push's own category is replaced) |
/// | buttons | the snooze buttons (the push's `snoozeSeconds`, else "Snooze 10 min") and "Dismiss" |
///
/// A server without `actions` shows it without buttons; one without `persistence` may drop it after a
/// while: schedd shows it again when the server closes it as expired or restarts (`AlarmReshow`).
/// Both are logged once per server instance (`limitations`).
public enum AlarmPresentation {
    /// The category hint of alarms.
    public static let category = "x-schedd.alarm"
    /// The sound theme name of a ringing alarm (freedesktop sound naming spec).
    public static let soundName = "alarm-clock-elapsed"
    /// The action key of the Dismiss button.
    public static let dismissKey = "schedd-dismiss"
    public static let dismissLabel = "Dismiss"

    /// `request` (built by `NotifyRequest`) turned into an alarm's: hints replaced or added as the table says,
    /// Dismiss appended to the buttons (servers with `actions` only), never expiring.
    static func apply(to request: inout NotifyRequest, capabilities: Set<String>) {
        var hints = request.hints.filter { !["urgency", "category", "resident", "sound-name"].contains($0.key) }
        hints.insert(NotifyRequest.Hint("urgency", .byte(Urgency.critical.byteValue)), at: 0)
        hints.insert(NotifyRequest.Hint("category", .string(category)), at: 1)
        hints.append(NotifyRequest.Hint("resident", .bool(true)))
        hints.append(NotifyRequest.Hint("sound-name", .string(soundName)))
        request.hints = hints
        if capabilities.contains("actions") {
            // Before "Open": Snooze and Dismiss are what a ringing alarm is answered with.
            var actions = request.actions
            let openAt = stride(from: 0, to: actions.count, by: 2).first { actions[$0] == "default" } ?? actions.count
            actions.insert(contentsOf: [dismissKey, dismissLabel], at: openAt)
            request.actions = actions
        }
        request.expireTimeout = 0
    }

    /// What a server with `capabilities` cannot do for an alarm, for the log (empty when it can do all).
    public static func limitations(capabilities: Set<String>) -> [String] {
        var missing: [String] = []
        if !capabilities.contains("actions") { missing.append("no 'actions': shown without its Snooze and Dismiss buttons") }
        if !capabilities.contains("persistence") {
            missing.append("no 'persistence': it may drop the alarm; schedd shows it again when it does")
        }
        if !capabilities.contains("sound") { missing.append("no 'sound': its sound-name hint may be ignored") }
        return missing
    }
}

/// The bound on showing an alarm again (CONTRACT §11: "a server that drops it unanswered gets it again at
/// once"): each alarm is shown again at most `maxReshows` times (10) per firing, so a server that expires
/// every notification at once cannot make schedd loop. Counted per (app, id) until the person answers it.
public struct AlarmReshow {
    public static let maxReshows = 10
    private var counts: [String: Int] = [:]

    public init() {}

    /// Whether the alarm `key` may be shown again, counting this time. O(1).
    public mutating func allow(_ key: String) -> Bool {
        let n = counts[key, default: 0]
        guard n < Self.maxReshows else { return false }
        counts[key] = n + 1
        return true
    }

    /// The alarm was answered (or shown anew by the engine): its count starts again.
    public mutating func reset(_ key: String) { counts[key] = nil }

    /// How many times `key` was shown again so far.
    public func count(_ key: String) -> Int { counts[key, default: 0] }
}
