/// Why bytes are not one strict RFC 8259 JSON value, and where.
///
/// `offset` is the 0-based index of the offending byte in the input (the input's length when it
/// ended too early). `description` reads `invalid JSON at byte 17: control character 0x0A in string`.
public struct JSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What rule of the grammar was broken.
    public enum Kind: Sendable, Hashable {
        /// The input ended inside a value (or was empty).
        case unexpectedEnd
        /// A byte that cannot start or continue the value here (`expected` names what could).
        case unexpectedByte(UInt8, expected: String)
        /// A byte sequence that is not well-formed UTF-8 (overlong, surrogate, > U+10FFFF, truncated).
        case invalidUTF8
        /// U+0000–U+001F unescaped inside a string.
        case controlCharacter(UInt8)
        /// A backslash not followed by one of `"\/bfnrtu`, or `\u` without four hex digits.
        case invalidEscape
        /// `\uD800`–`\uDFFF` not forming a high-low surrogate pair.
        case loneSurrogate
        /// A number not matching `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
        case invalidNumber
        /// Arrays and objects nested deeper than the limit.
        case tooDeep(limit: Int)
        /// Something other than whitespace after the value.
        case trailingData
    }

    public var kind: Kind
    public var offset: Int

    public init(_ kind: Kind, at offset: Int) { self.kind = kind; self.offset = offset }

    /// The broken rule in words, without the offset (`control character 0x0A in string`).
    public var reason: String {
        switch kind {
        case .unexpectedEnd: return "unexpected end of input"
        case .unexpectedByte(let b, let expected): return "unexpected \(JSONError.show(b)), expected \(expected)"
        case .invalidUTF8: return "invalid UTF-8"
        case .controlCharacter(let b): return "control character \(JSONError.hex(b)) in string"
        case .invalidEscape: return "invalid escape sequence"
        case .loneSurrogate: return "lone surrogate in \\u escape"
        case .invalidNumber: return "invalid number"
        case .tooDeep(let limit): return "nested deeper than \(limit) levels"
        case .trailingData: return "data after the value"
        }
    }

    public var description: String { "invalid JSON at byte \(offset): \(reason)" }

    static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "0x" + String(digits[Int(b >> 4)]) + String(digits[Int(b & 15)])
    }

    static func show(_ b: UInt8) -> String {
        (0x21...0x7E).contains(b) ? "'" + String(UnicodeScalar(b)) + "'" : "byte " + hex(b)
    }
}
