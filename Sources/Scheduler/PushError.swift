import SchedCalendar

/// Why a push was rejected: the member at fault and the rule it broke (CONTRACT §1, §6).
///
/// `description` is `member: rule`, the text `schedd push` prints in `{"error": …}`:
/// `bk.local.at: 2026-02-30T10:00 is not a date`, `bk.local.cancelOn: more than 32 events`,
/// `push: invalid JSON at byte 17: control character 0x0A in string`.
///
/// `member` is a dotted path from the root (`bk.local.actions[1].id`), or `push` for the push as a
/// whole. Messages quote sender text only where the rule needs it (a bad `at`, an unknown zone) and
/// never quote `title`, `body` or `data`, which are private.
public struct PushError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The dotted path of the offending member, or `push`.
    public var member: String
    /// The rule broken, in words (`more than 32 events`).
    public var rule: String

    public init(_ member: String, _ rule: String) { self.member = member; self.rule = rule }

    /// `member: rule`.
    public var message: String { member + ": " + rule }

    public var description: String { message }

    /// See `quotedForMessage(_:)`.
    static func quoted(_ text: String) -> String { quotedForMessage(text) }
}
