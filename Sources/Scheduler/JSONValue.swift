/// A JSON value (RFC 8259), objects kept in document order.
///
/// Numbers keep the literal text as written, so integers of any size survive exactly and a
/// decoder can tell `3` from `3.0`.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// The number's literal text (`42`, `-1.5e3`).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])
}

/// One member of a JSON object.
public struct JSONMember: Sendable, Hashable {
    public var key: String
    public var value: JSONValue
    public init(_ key: String, _ value: JSONValue) { self.key = key; self.value = value }
}

extension JSONValue {
    /// An integer number.
    public static func int<I: BinaryInteger>(_ v: I) -> JSONValue { .number(String(v)) }
    /// A number from a double (shortest round-trip text; integral values without `.0`).
    public static func double(_ v: Double) -> JSONValue {
        if v.isFinite && v == v.rounded() && abs(v) < 1e15 { return .number(String(Int64(v))) }
        return .number(v.isFinite ? String(v) : "null")
    }
    /// A string, or null when nil.
    public static func optional(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }

    /// Compact serialization (`{"a":1}`); `sortedKeys` gives a canonical form. Strings are escaped
    /// per RFC 8259 (control characters as `\u00XX`); non-ASCII is written as UTF-8.
    public func serialized(sortedKeys: Bool = false) -> String {
        var out = ""
        write(into: &out, sortedKeys: sortedKeys)
        return out
    }

    private func write(into out: inout String, sortedKeys: Bool) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n
        case .string(let s): JSONValue.writeString(s, into: &out)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(into: &out, sortedKeys: sortedKeys)
            }
            out += "]"
        case .object(let members):
            out += "{"
            let ordered = sortedKeys ? members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) } : members
            for (i, m) in ordered.enumerated() {
                if i > 0 { out += "," }
                JSONValue.writeString(m.key, into: &out)
                out += ":"
                m.value.write(into: &out, sortedKeys: sortedKeys)
            }
            out += "}"
        }
    }

    static func writeString(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
