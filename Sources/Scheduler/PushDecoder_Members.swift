/// The members of one JSON object under validation (an object node of a `JSONTape`), looked up by name, with
/// the typed accessors that turn a wrong JSON type into a `PushError` naming the member.
///
/// Construction rejects duplicate names (`bk.local: duplicate member "title"`): a push with two
/// titles has no single meaning, and the fingerprint must not depend on which one a reader keeps.
/// Names are compared as Swift strings (canonical equivalence), as a dictionary keyed by them would: a name
/// is one of `known` exactly when its bytes are (no known name has a canonically equivalent other spelling:
/// they are ASCII without `K`, `;` or `` ` ``, the only ASCII characters with one), and two unknown names
/// by `JSONTape.textsEqual`. The error names the first member (in document order) equal to an earlier one.
/// Names not in `known` are appended to `unknown` as dotted paths, in document order.
///
/// Cost: one pass over the members comparing each name's bytes with the known names (no `String` per
/// name); each known member's value node is kept in a slot, and accessors take the slot's index (the
/// `…Member` constants next to each name list), so a lookup is O(1). Unknown names are compared pairwise up to 16, hashed beyond: O(n).
struct PushObject {
    let path: String
    let tape: JSONTape
    private let known: [StaticString]
    /// The value node of each `known` name, -1 when absent. Up to `maxKnown` names.
    private var slots: InlineArray<24, Int32>

    static let maxKnown = 24

    init(_ tape: JSONTape, _ node: Int, path: String, known: [StaticString],
         unknown: inout [String]) throws(PushError) {
        precondition(known.count <= PushObject.maxKnown, "PushObject: more known names than slots")
        self.path = path
        self.tape = tape
        self.known = known
        slots = InlineArray(repeating: -1)
        var unknownKeys: [Int] = []
        var unknownSeen: Set<String>?
        var key = node + 1
        for _ in 0..<tape[node].count {
            defer { key = tape.entry(after: key, inObject: true) }
            if let k = PushObject.knownIndex(tape, key, known) {
                guard slots[k] < 0 else {
                    throw PushError(path, "duplicate member \(PushError.quoted(tape.string(key)))")
                }
                slots[k] = Int32(key + 1)
                continue
            }
            if unknownSeen == nil && unknownKeys.count == 16 {
                unknownSeen = Set(unknownKeys.map(tape.string))
            }
            if unknownSeen != nil {
                let name = tape.string(key)
                if !unknownSeen!.insert(name).inserted {
                    throw PushError(path, "duplicate member \(PushError.quoted(name))")
                }
            } else if unknownKeys.contains(where: { tape.textsEqual($0, key) }) {
                throw PushError(path, "duplicate member \(PushError.quoted(tape.string(key)))")
            }
            unknownKeys.append(key)
        }
        for key in unknownKeys { unknown.append(path + "." + tape.string(key)) }
    }

    /// The index in `known` of key node `key`'s text, nil when it is none of them. Unescaped keys (all real
    /// ones) are compared by length and first byte before their bytes.
    private static func knownIndex(_ tape: JSONTape, _ key: Int, _ known: [StaticString]) -> Int? {
        let node = tape[key]
        guard !node.escaped else { return known.firstIndex { tape.text(key, equals: $0) } }
        let length = node.end - node.start
        guard length > 0 else { return nil }
        let first = tape.bytes[node.start]
        for k in known.indices where known[k].utf8CodeUnitCount == length && known[k].utf8Start[0] == first {
            if JSONTape.equal(tape.raw(key), UnsafeBufferPointer(start: known[k].utf8Start, count: length)) { return k }
        }
        return nil
    }

    /// The value node of the member named `known[key]`, nil when absent.
    func value(_ key: Int) -> Int? {
        guard key >= 0 && key < known.count, slots[key] >= 0 else { return nil }
        return Int(slots[key])
    }

    func has(_ key: Int) -> Bool { value(key) != nil }

    /// The dotted path of member `known[key]` (`bk.local.title`), for errors.
    func path(_ key: Int) -> String { path + "." + known[key].description }

    /// A string member, nil when absent; another JSON type (null included) is an error.
    func string(_ key: Int) throws(PushError) -> String? {
        guard let v = value(key) else { return nil }
        guard tape[v].kind == .string else { throw PushError(path(key), "must be a string") }
        return tape.string(v)
    }

    /// A boolean member, nil when absent; another JSON type (null included) is an error.
    func bool(_ key: Int) throws(PushError) -> Bool? {
        guard let v = value(key) else { return nil }
        switch tape[v].kind {
        case .true: return true
        case .false: return false
        default: throw PushError(path(key), "must be true or false")
        }
    }

    /// A string member that must be present.
    func requiredString(_ key: Int) throws(PushError) -> String {
        guard let s = try string(key) else { throw PushError(path(key), "required") }
        return s
    }

    /// An array member's node, nil when absent.
    func array(_ key: Int) throws(PushError) -> Int? {
        guard let v = value(key) else { return nil }
        guard tape[v].kind == .array else { throw PushError(path(key), "must be an array") }
        return v
    }

    /// An object member's node, nil when absent.
    func object(_ key: Int) throws(PushError) -> Int? {
        guard let v = value(key) else { return nil }
        guard tape[v].kind == .object else { throw PushError(path(key), "must be an object") }
        return v
    }
}

/// Rules shared by several string members. Each throws a `PushError` for `member`.
enum PushRules {
    /// The id rule (CONTRACT §1 `id`): 1–`maxBytes` bytes of UTF-8, no control characters
    /// (Unicode category Cc: U+0000–U+001F and U+007F–U+009F).
    static func identifier(_ s: String, _ member: @autoclosure () -> String, maxBytes: Int) throws(PushError) {
        guard !s.isEmpty else { throw PushError(member(), "must not be empty") }
        try maxLength(s, member(), maxBytes)
        if containsControl(s) { throw PushError(member(), "contains a control character") }
    }

    /// Whether `s` holds a control character (U+0000–U+001F, U+007F–U+009F), read from its UTF-8: a byte
    /// below 0x20, 0x7F, or C2 80…C2 9F (U+0080–U+009F; a `String`'s UTF-8 is well-formed, so C2 always
    /// starts a scalar).
    static func containsControl(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { utf8 in
            for i in 0..<utf8.count {
                let b = utf8[i]
                if b < 0x20 || b == 0x7F { return true }
                if b == 0xC2, i + 1 < utf8.count, utf8[i + 1] & 0xE0 == 0x80 { return true }
            }
            return false
        }
    }

    /// Text shown or stored verbatim: at most `maxBytes` bytes of UTF-8 and no U+0000 (a D-Bus
    /// string cannot carry it, so it would be cut short on screen).
    static func text(_ s: String, _ member: @autoclosure () -> String, maxBytes: Int) throws(PushError) {
        try maxLength(s, member(), maxBytes)
        var s = s
        if s.withUTF8({ $0.contains(0) }) { throw PushError(member(), "contains U+0000") }
    }

    static func maxLength(_ s: String, _ member: @autoclosure () -> String, _ maxBytes: Int) throws(PushError) {
        if s.utf8.count > maxBytes { throw PushError(member(), "longer than \(maxBytes) bytes") }
    }
}
