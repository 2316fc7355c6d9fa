// STAND-IN: delete when JSONValue's parser lands from branch `payload`; `parseJSON` is the only call site.
import Scheduler

/// Parses one JSON text (RFC 8259) into a `JSONValue`; the message says what is wrong and where.
/// Nesting is limited to 128 levels so hostile input cannot exhaust the stack.
func parseJSON(_ text: String) -> Result<JSONValue, JSONParseFailure> {
    var parser = MiniJSONParser(bytes: Array(text.utf8))
    do throws(JSONParseFailure) {
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.failure("unexpected text after the value") }
        return .success(value)
    } catch {
        return .failure(error)
    }
}

struct JSONParseFailure: Error, Sendable { var message: String }

private struct MiniJSONParser {
    let bytes: [UInt8]
    var index = 0

    func failure(_ what: String) -> JSONParseFailure { JSONParseFailure(message: "invalid JSON at byte \(index): \(what)") }

    mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    mutating func expect(_ literal: String) throws(JSONParseFailure) {
        for b in literal.utf8 {
            guard index < bytes.count, bytes[index] == b else { throw failure("expected '\(literal)'") }
            index += 1
        }
    }

    mutating func parseValue(depth: Int) throws(JSONParseFailure) -> JSONValue {
        guard depth < 128 else { throw failure("nested too deeply") }
        guard index < bytes.count else { throw failure("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var members: [JSONMember] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a member name") }
                let key = try parseString()
                skipWhitespace()
                try expect(":")
                skipWhitespace()
                members.append(JSONMember(key, try parseValue(depth: depth + 1)))
                skipWhitespace()
                guard index < bytes.count else { throw failure("unterminated object") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
                throw failure("expected ',' or '}'")
            }
        case UInt8(ascii: "["):
            index += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            while true {
                skipWhitespace()
                items.append(try parseValue(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw failure("unterminated array") }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                throw failure("expected ',' or ']'")
            }
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        default: return try parseNumber()
        }
    }

    mutating func parseNumber() throws(JSONParseFailure) -> JSONValue {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        var digits = 0
        while index < bytes.count, (0x30...0x39).contains(bytes[index]) || [0x2E, 0x65, 0x45, 0x2B, 0x2D].contains(bytes[index]) {
            if (0x30...0x39).contains(bytes[index]) { digits += 1 }
            index += 1
        }
        guard digits > 0 else { index = start; throw failure("unexpected character") }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard Double(text) != nil else { throw failure("malformed number '\(text)'") }
        return .number(text)
    }

    mutating func parseString() throws(JSONParseFailure) -> String {
        index += 1  // opening quote
        var scalars = String.UnicodeScalarView()
        var run = index
        var out = ""
        func flush(_ p: inout MiniJSONParser, _ out: inout String, _ run: Int) {
            out += String(decoding: p.bytes[run..<p.index], as: UTF8.self)
        }
        while true {
            guard index < bytes.count else { throw failure("unterminated string") }
            let b = bytes[index]
            if b == UInt8(ascii: "\"") { flush(&self, &out, run); index += 1; return out }
            if b < 0x20 { throw failure("control character in string") }
            if b != UInt8(ascii: "\\") { index += 1; continue }
            flush(&self, &out, run)
            index += 1
            guard index < bytes.count else { throw failure("unterminated escape") }
            let e = bytes[index]
            index += 1
            switch e {
            case UInt8(ascii: "\""): out += "\""
            case UInt8(ascii: "\\"): out += "\\"
            case UInt8(ascii: "/"): out += "/"
            case UInt8(ascii: "b"): out += "\u{8}"
            case UInt8(ascii: "f"): out += "\u{C}"
            case UInt8(ascii: "n"): out += "\n"
            case UInt8(ascii: "r"): out += "\r"
            case UInt8(ascii: "t"): out += "\t"
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800...0xDBFF).contains(code), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                   bytes[index + 1] == UInt8(ascii: "u") {
                    index += 2
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw failure("invalid surrogate pair") }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw failure("invalid \\u escape") }
                scalars.append(scalar)
                out.unicodeScalars.append(contentsOf: scalars)
                scalars.removeAll()
            default: throw failure("invalid escape")
            }
            run = index
        }
    }

    mutating func hex4() throws(JSONParseFailure) -> UInt32 {
        guard index + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
        else { throw failure("invalid \\u escape") }
        index += 4
        return v
    }
}

extension JSONValue {
    /// The member `key` of an object, or nil.
    subscript(member key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }
    var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    var numberText: String? { if case .number(let n) = self { return n }; return nil }
}
