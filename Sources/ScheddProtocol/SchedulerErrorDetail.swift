/// The structured part of a schedd error reply: which member of the call broke which rule, and where.
///
/// On the bus (README.md "Errors"): an error reply of org.schedd.Scheduler1 has the body `s`
/// (the one-line message, `bk.local.title: required`) or, when the error names a member, `sssss`: the
/// message, then `member` (`bk.local.title`, the dotted path; `push` for the push as a whole), `rule`
/// (`required`: the message is always `member + ": " + rule`), then, for a JSON syntax error only,
/// `position` (the 0-based offset of the offending byte in the push, decimal) and `syntax` (the parser's
/// reason without the offset) — both empty otherwise. Example: `push: invalid JSON at byte 6: unexpected
/// end of input` is sent as `"push: invalid JSON at byte 6: unexpected end of input" "push" "invalid
/// JSON at byte 6: unexpected end of input" "6" "unexpected end of input"`. Clients that read only the first
/// string see the message as before. Decoding is total: a body of another shape gives nil.
public struct SchedulerErrorDetail: Sendable, Hashable {
    /// The dotted path of the offending member, or `push`.
    public var member: String
    /// The rule broken, in words.
    public var rule: String
    /// The byte offset in the push (JSON syntax errors), nil when the error has none.
    public var position: Int?
    /// The JSON parser's reason without the offset (JSON syntax errors), nil when the error has none.
    public var syntax: String?

    public init(member: String, rule: String, position: Int? = nil, syntax: String? = nil) {
        self.member = member; self.rule = rule; self.position = position; self.syntax = syntax
    }

    /// The strings that follow the message in the error body: member, rule, position, syntax.
    public var fields: [String] { [member, rule, position.map(String.init) ?? "", syntax ?? ""] }

    /// The detail of the strings that follow the message (`fields`); nil for any other shape.
    public init?(fields: [String]) {
        guard fields.count == 4 else { return nil }
        let position: Int?
        if fields[2].isEmpty { position = nil } else {
            guard let offset = Int(fields[2]), offset >= 0 else { return nil }
            position = offset
        }
        self.init(member: fields[0], rule: fields[1], position: position, syntax: fields[3].isEmpty ? nil : fields[3])
    }
}
