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
    public static func == (a: PushError, b: PushError) -> Bool {
        a.member == b.member && a.rule == b.rule && a.syntax?.position == b.syntax?.position && a.syntax?.reason == b.syntax?.reason
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(member); hasher.combine(rule) }

    /// The dotted path of the offending member, or `push`.
    public let member: String
    /// The rule broken, in words (`more than 32 events`).
    public let rule: String
    /// A JSON syntax error: the 0-based offset of the offending byte in the push and the parser's
    /// reason without it (`unexpected end of input`); nil otherwise.
    public let syntax: (position: Int, reason: String)?

    public init(_ member: String, _ rule: String) {
        self.member = member; self.rule = rule; syntax = nil
    }

    /// The push is not JSON: member `push`, rule `invalid JSON at byte N: REASON`, and N and REASON as data.
    public init(syntax error: JSONError) {
        member = "push"; rule = error.description; syntax = (error.offset, error.reason)
    }

    /// `member: rule`.
    public var message: String { member + ": " + rule }

    public var description: String { message }

    /// See `quotedForMessage(_:)`.
    static func quoted(_ text: String) -> String { quotedForMessage(text) }
}
