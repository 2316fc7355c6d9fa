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
        out.reserveCapacity(256)
        write(into: &out, sortedKeys: sortedKeys)
        return String(decoding: out, as: UTF8.self)
    }

    /// An array or object being written: its elements, and the next one to write (for an object in
    /// sorted-key order, `order` holds the member indices sorted).
    private struct WriteFrame {
        var items: [JSONValue] = []
        var members: [JSONMember] = []
        var order: [Int] = []
        var isObject: Bool
        var next = 1
        var count: Int { isObject ? members.count : items.count }
    }

    /// Appends the compact serialization to `out` as UTF-8 (`serialized` without the `String`).
    public func write(into out: inout [UInt8], sortedKeys: Bool) {
        // One frame per open container (not one stack entry per pending value): writing a value never
        // copies the values after it.
        var stack: [WriteFrame] = []
        var value = self
        while true {
            switch value {
            case .null: out.append(contentsOf: "null".utf8)
            case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
            case .number(let n): out.append(contentsOf: n.utf8)
            case .string(let s): JSONValue.writeString(s, into: &out)
            case .array(let items):
                out.append(UInt8(ascii: "["))
                guard let first = items.first else { out.append(UInt8(ascii: "]")); break }
                stack.append(WriteFrame(items: items, isObject: false))
                value = first
                continue
            case .object(let members):
                out.append(UInt8(ascii: "{"))
                guard !members.isEmpty else { out.append(UInt8(ascii: "}")); break }
                let order = sortedKeys ? JSONValue.sortedOrder(members) : []
                let first = order.first ?? 0
                JSONValue.writeString(members[first].key, into: &out)
                out.append(UInt8(ascii: ":"))
                value = members[first].value
                stack.append(WriteFrame(members: members, order: order, isObject: true))
                continue
            }
            // The value is written: go on with the next element of the innermost open container.
            while let top = stack.indices.last {
                let i = stack[top].next
                guard i < stack[top].count else {
                    out.append(UInt8(ascii: stack[top].isObject ? "}" : "]"))
                    stack.removeLast()
                    continue
                }
                stack[top].next = i + 1
                out.append(UInt8(ascii: ","))
                if stack[top].isObject {
                    let m = stack[top].order.isEmpty ? i : stack[top].order[i]
                    JSONValue.writeString(stack[top].members[m].key, into: &out)
                    out.append(UInt8(ascii: ":"))
                    value = stack[top].members[m].value
                } else {
                    value = stack[top].items[i]
                }
                break
            }
            if stack.isEmpty { return }
        }
    }

    /// The indices of `members` ordered by their keys' UTF-8 bytes; equal keys keep document order
    /// (insertion sort for the few members objects usually have, a stable sort beyond).
    static func sortedOrder(_ members: [JSONMember]) -> [Int] {
        if members.count > 16 {
            return members.indices.sorted { utf8Precedes(members[$0].key, members[$1].key) }
        }
        var order = Array(members.indices)
        for i in order.indices.dropFirst() {
            let moving = order[i]
            var j = i
            while j > 0 && utf8Precedes(members[moving].key, members[order[j - 1]].key) {
                order[j] = order[j - 1]
                j -= 1
            }
            order[j] = moving
        }
        return order
    }

    /// Whether `a`'s UTF-8 bytes sort before `b`'s (bytewise, a prefix first).
    static func utf8Precedes(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { pa in
            b.withUTF8 { pb in
                for i in 0..<min(pa.count, pb.count) where pa[i] != pb[i] { return pa[i] < pb[i] }
                return pa.count < pb.count
            }
        }
    }

    /// Appends `s` as a JSON string literal, quotes included.
    public static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { utf8 in
            // Copy runs of bytes that need no escape in one go.
            // An index loop: `enumerated()` resolved generic metadata per byte in debug builds (perf: ~14 s
            // of daemon CPU for a 48 MB `schedd list --json`).
            var runStart = 0
            var i = 0
            let count = utf8.count
            while i < count {
                let b = utf8[i]
                i += 1
                guard b < 0x20 || b == 0x22 || b == 0x5C else { continue }  // control, `"`, `\`
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<(i - 1)]))
                runStart = i
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
