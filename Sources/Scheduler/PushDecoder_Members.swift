/// The members of one JSON object under validation, looked up by name, with the typed accessors
/// that turn a wrong JSON type into a `PushError` naming the member.
///
/// Construction rejects duplicate names (`bk.local: duplicate member "title"`): a push with two
/// titles has no single meaning, and the fingerprint must not depend on which one a reader keeps.
/// Names are compared as Swift strings (canonical equivalence), as a dictionary keyed by them would.
/// Names not in `known` are appended to `unknown` as dotted paths, in document order.
///
/// Cost: the members are kept as parsed and searched linearly (a push's objects have a handful of
/// members, and hashing every name cost more than the scans: BENCHMARKS.md §3b); the duplicate check
/// compares pairs up to 16 members and hashes the names beyond (`PushRules.firstDuplicateKey`), so it
/// stays O(n).
struct PushObject {
    let path: String
    private let members: [JSONMember]

    init(_ members: [JSONMember], path: String, known: [String], unknown: inout [String]) throws(PushError) {
        self.path = path
        self.members = members
        if let duplicate = PushRules.firstDuplicateKey(members) {
            throw PushError(path, "duplicate member \(PushError.quoted(duplicate))")
        }
        for m in members where !known.contains(m.key) { unknown.append(path + "." + m.key) }
    }

    func has(_ key: String) -> Bool { value(key) != nil }

    func path(_ key: String) -> String { path + "." + key }

    func value(_ key: String) -> JSONValue? {
        for m in members where m.key == key { return m.value }
        return nil
    }

    /// A string member, nil when absent; another JSON type (null included) is an error.
    func string(_ key: String) throws(PushError) -> String? {
        switch value(key) {
        case nil: return nil
        case .string(let s)?: return s
        default: throw PushError(path(key), "must be a string")
        }
    }

    /// A string member that must be present.
    func requiredString(_ key: String) throws(PushError) -> String {
        guard let s = try string(key) else { throw PushError(path(key), "required") }
        return s
    }

    func array(_ key: String) throws(PushError) -> [JSONValue]? {
        switch value(key) {
        case nil: return nil
        case .array(let items)?: return items
        default: throw PushError(path(key), "must be an array")
        }
    }

    func object(_ key: String) throws(PushError) -> [JSONMember]? {
        switch value(key) {
        case nil: return nil
        case .object(let members)?: return members
        default: throw PushError(path(key), "must be an object")
        }
    }
}

/// Rules shared by several string members. Each throws a `PushError` for `member`.
enum PushRules {
    /// The id rule (CONTRACT §1 `id`): 1–`maxBytes` bytes of UTF-8, no control characters
    /// (Unicode category Cc: U+0000–U+001F and U+007F–U+009F).
    static func identifier(_ s: String, _ member: @autoclosure () -> String, maxBytes: Int) throws(PushError) {
        guard !s.isEmpty else { throw PushError(member(), "must not be empty") }
        try maxLength(s, member(), maxBytes)
        if s.unicodeScalars.contains(where: isControl) { throw PushError(member(), "contains a control character") }
    }

    /// Text shown or stored verbatim: at most `maxBytes` bytes of UTF-8 and no U+0000 (a D-Bus
    /// string cannot carry it, so it would be cut short on screen).
    static func text(_ s: String, _ member: @autoclosure () -> String, maxBytes: Int) throws(PushError) {
        try maxLength(s, member(), maxBytes)
        if s.utf8.contains(0) { throw PushError(member(), "contains U+0000") }
    }

    static func maxLength(_ s: String, _ member: @autoclosure () -> String, _ maxBytes: Int) throws(PushError) {
        if s.utf8.count > maxBytes { throw PushError(member(), "longer than \(maxBytes) bytes") }
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// The first key of `members` that an earlier member already has (in document order), or nil.
    /// Up to 16 members by comparing pairs (cheaper than hashing a handful of names), beyond by a Set:
    /// O(n) either way.
    static func firstDuplicateKey(_ members: [JSONMember]) -> String? {
        if members.count <= 16 {
            for i in members.indices {
                for j in members.startIndex..<i where members[j].key == members[i].key { return members[i].key }
            }
            return nil
        }
        var seen = Set<String>(minimumCapacity: members.count)
        for m in members where !seen.insert(m.key).inserted { return m.key }
        return nil
    }

    /// Rejects duplicate keys anywhere inside `value` (for `data`, whose canonical form is sorted).
    /// Iterative, O(size of value).
    static func uniqueKeys(_ value: JSONValue, _ member: @autoclosure () -> String) throws(PushError) {
        var pending = [value]
        while let v = pending.popLast() {
            switch v {
            case .array(let items): pending.append(contentsOf: items)
            case .object(let members):
                if let duplicate = firstDuplicateKey(members) {
                    throw PushError(member(), "duplicate member \(PushError.quoted(duplicate))")
                }
                for m in members { pending.append(m.value) }
            default: break
            }
        }
    }
}
