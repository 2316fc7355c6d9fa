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

    /// Compact serialization (`{"a":1}`); `sortedKeys` gives a canonical form (keys ordered by their
    /// UTF-8 bytes, at every level). Strings get the shortest RFC 8259 escapes (`\"`, `\\`, `\b`, `\f`,
    /// `\n`, `\r`, `\t`, other U+0000–U+001F as `\u00XX`); everything else is written as UTF-8. So
    /// the output is never longer than any JSON text that parses to the same value with the same
    /// key order (whitespace gone, each escape as short as or shorter than the input's).
    ///
    /// Iterative (an explicit stack), so nesting depth costs heap, not call stack; O(size), plus the
    /// key sort when `sortedKeys`.
    public func serialized(sortedKeys: Bool = false) -> String {
        var out: [UInt8] = []
        write(into: &out, sortedKeys: sortedKeys)
        return String(decoding: out, as: UTF8.self)
    }

    /// Work still to do while serializing: a value, punctuation, or an object key with its colon.
    private enum Pending {
        case value(JSONValue)
        case byte(UInt8)
        case key(String)
    }

    /// Appends the compact serialization to `out` as UTF-8.
    func write(into out: inout [UInt8], sortedKeys: Bool) {
        // Containers push their closing bracket, then their elements in reverse, so elements pop in order.
        var stack: [Pending] = [.value(self)]
        while let next = stack.popLast() {
            switch next {
            case .byte(let b): out.append(b)
            case .key(let k):
                JSONValue.writeString(k, into: &out)
                out.append(UInt8(ascii: ":"))
            case .value(.null): out.append(contentsOf: "null".utf8)
            case .value(.bool(let b)): out.append(contentsOf: (b ? "true" : "false").utf8)
            case .value(.number(let n)): out.append(contentsOf: n.utf8)
            case .value(.string(let s)): JSONValue.writeString(s, into: &out)
            case .value(.array(let items)):
                out.append(UInt8(ascii: "["))
                stack.append(.byte(UInt8(ascii: "]")))
                for i in items.indices.reversed() {
                    stack.append(.value(items[i]))
                    if i > items.startIndex { stack.append(.byte(UInt8(ascii: ","))) }
                }
            case .value(.object(let members)):
                out.append(UInt8(ascii: "{"))
                stack.append(.byte(UInt8(ascii: "}")))
                let ordered = sortedKeys ? members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) } : members
                for i in ordered.indices.reversed() {
                    stack.append(.value(ordered[i].value))
                    stack.append(.key(ordered[i].key))
                    if i > ordered.startIndex { stack.append(.byte(UInt8(ascii: ","))) }
                }
            }
        }
    }

    /// Appends `s` as a JSON string literal, quotes included.
    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            // Copy runs of bytes that need no escape in one go.
            var runStart = 0
            for (i, b) in utf8.enumerated() where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
                runStart = i + 1
                out.append(UInt8(ascii: "\\"))
                switch b {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(b)
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "t"))
                case 0x08: out.append(UInt8(ascii: "b"))
                case 0x0C: out.append(UInt8(ascii: "f"))
                default:
                    out.append(contentsOf: "u00".utf8)
                    out.append(hexDigit(b >> 4))
                    out.append(hexDigit(b & 0xF))
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? UInt8(ascii: "0") + v : UInt8(ascii: "a") + v - 10 }

    /// Appends `s` as a JSON string literal, quotes included.
    static func writeString(_ s: String, into out: inout String) {
        var bytes: [UInt8] = []
        writeString(s, into: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }
}
