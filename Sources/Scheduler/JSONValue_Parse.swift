extension JSONValue {
    /// Parses exactly one strict RFC 8259 JSON value from UTF-8 bytes.
    ///
    /// Strict means: only `"\t\n\r "` as whitespace; no byte-order mark; no comments, trailing commas,
    /// single quotes, `NaN` or leading `+`/`0`; strings must be well-formed UTF-8 (overlong forms,
    /// encoded surrogates, code points above U+10FFFF and truncated sequences are rejected), must not
    /// hold unescaped U+0000–U+001F, and `\u` escapes must not leave a lone surrogate; nothing but
    /// whitespace may follow the value. Numbers are checked against the grammar and kept as their
    /// literal text. Duplicate object keys are *kept*, in document order: the parser is a faithful
    /// syntax tree, and consumers that need unique keys (`PushDecoder` does) check them.
    ///
    /// Untrusted input never traps: the parser is iterative (an explicit stack, no recursion) and
    /// time and memory are linear in the input's length. `[[...]]` nested `maxDepth` deep is
    /// accepted; one more level is `.tooDeep`. `maxDepth` is clamped to `maxSupportedDepth`, because
    /// `JSONValue`'s own operations (`==`, hashing, `serialized`, and releasing it) recurse once per
    /// level. Errors carry the 0-based byte offset of the offending byte.
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = 64) throws(JSONError) -> JSONValue {
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            parseResult(buffer, maxDepth: maxDepth)
        } ?? Array(bytes).withUnsafeBufferPointer { parseResult($0, maxDepth: maxDepth) }
        return try result.get()
    }

    /// The deepest nesting `parse` ever accepts, whatever `maxDepth` says: deep enough for any real
    /// document, shallow enough that recursing over the value stays far inside a thread's stack.
    public static let maxSupportedDepth = 1_000

    /// Parses the UTF-8 of `text`; the same rules as `parse(_:maxDepth:)`.
    public static func parse(_ text: String, maxDepth: Int = 64) throws(JSONError) -> JSONValue {
        try parse(text.utf8, maxDepth: maxDepth)
    }

    private static func parseResult(_ buffer: UnsafeBufferPointer<UInt8>, maxDepth: Int) -> Result<JSONValue, JSONError> {
        var parser = JSONParser(buffer, maxDepth: maxDepth)
        do throws(JSONError) {
            return .success(try parser.parseDocument())
        } catch {
            return .failure(error)
        }
    }
}

/// The iterative parser behind `JSONValue.parse`. One instance parses one document.
///
/// Invariant: `position` never exceeds `bytes.count`; every read goes through `peek()` (which
/// returns nil at the end) or follows an explicit bounds check.
struct JSONParser {
    /// An array or object still open, with what it has collected so far.
    ///
    /// A struct mutated in place through `stack[top]` (not an enum popped and re-pushed): pulling an
    /// enum's payload out leaves a second reference, so every append would copy the array and
    /// parsing a long array would be quadratic.
    private struct Frame {
        var isObject: Bool
        var items: [JSONValue] = []
        var members: [JSONMember] = []
        var pendingKey = ""
    }

    let bytes: UnsafeBufferPointer<UInt8>
    private let maxDepth: Int
    var position = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = min(max(0, maxDepth), JSONValue.maxSupportedDepth)
    }

    func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    func fail(_ kind: JSONError.Kind) -> JSONError { JSONError(kind, at: position) }

    func unexpected(_ expected: String) -> JSONError {
        guard let b = peek() else { return fail(.unexpectedEnd) }
        return fail(.unexpectedByte(b, expected: expected))
    }

    private mutating func expect(_ byte: UInt8, _ name: String) throws(JSONError) {
        guard peek() == byte else { throw unexpected(name) }
        position += 1
    }

    /// The whole input as one value followed only by whitespace.
    mutating func parseDocument() throws(JSONError) -> JSONValue {
        var stack: [Frame] = []
        while true {
            // Parse one value, or open a container and loop to parse its first element.
            skipWhitespace()
            var value: JSONValue
            guard let first = peek() else { throw fail(.unexpectedEnd) }
            switch first {
            case UInt8(ascii: "{"):
                guard stack.count < maxDepth else { throw fail(.tooDeep(limit: maxDepth)) }
                position += 1
                skipWhitespace()
                if peek() == UInt8(ascii: "}") {
                    position += 1
                    value = .object([])
                } else {
                    stack.append(Frame(isObject: true, pendingKey: try parseKey()))
                    continue
                }
            case UInt8(ascii: "["):
                guard stack.count < maxDepth else { throw fail(.tooDeep(limit: maxDepth)) }
                position += 1
                skipWhitespace()
                if peek() == UInt8(ascii: "]") {
                    position += 1
                    value = .array([])
                } else {
                    stack.append(Frame(isObject: false))
                    continue
                }
            case UInt8(ascii: "\""): value = .string(try parseString())
            case UInt8(ascii: "t"): try parseLiteral("true"); value = .bool(true)
            case UInt8(ascii: "f"): try parseLiteral("false"); value = .bool(false)
            case UInt8(ascii: "n"): try parseLiteral("null"); value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = .number(try parseNumber())
            default: throw unexpected("a value")
            }

            // Hand the finished value to the innermost open container; close containers as they end.
            while true {
                let top = stack.count - 1
                guard top >= 0 else {
                    skipWhitespace()
                    guard position == bytes.count else { throw fail(.trailingData) }
                    return value
                }
                skipWhitespace()
                if stack[top].isObject {
                    stack[top].members.append(JSONMember(stack[top].pendingKey, value))
                    if peek() == UInt8(ascii: ",") {
                        position += 1
                        skipWhitespace()
                        stack[top].pendingKey = try parseKey()
                    } else if peek() == UInt8(ascii: "}") {
                        position += 1
                        value = .object(stack.removeLast().members)
                        continue
                    } else {
                        throw unexpected("',' or '}'")
                    }
                } else {
                    stack[top].items.append(value)
                    if peek() == UInt8(ascii: ",") {
                        position += 1
                    } else if peek() == UInt8(ascii: "]") {
                        position += 1
                        value = .array(stack.removeLast().items)
                        continue
                    } else {
                        throw unexpected("',' or ']'")
                    }
                }
                break
            }
        }
    }

    /// `"key" :` with the whitespace around the colon; leaves `position` before the member's value.
    private mutating func parseKey() throws(JSONError) -> String {
        guard peek() == UInt8(ascii: "\"") else { throw unexpected("a string key") }
        let key = try parseString()
        skipWhitespace()
        try expect(UInt8(ascii: ":"), "':'")
        return key
    }

    private mutating func parseLiteral(_ word: StaticString) throws(JSONError) {
        let start = position
        var i = 0
        while i < word.utf8CodeUnitCount {
            guard let b = peek() else { throw fail(.unexpectedEnd) }
            guard b == word.utf8Start[i] else {
                position = start
                throw unexpected("a value")
            }
            position += 1
            i += 1
        }
    }

    /// The literal text of a number; `position` starts at its first byte.
    private mutating func parseNumber() throws(JSONError) -> String {
        let start = position
        if peek() == UInt8(ascii: "-") { position += 1 }
        guard let first = peek(), isDigit(first) else { throw unexpected("a digit") }
        position += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if peek() == UInt8(ascii: ".") {
            position += 1
            guard let b = peek(), isDigit(b) else { throw unexpected("a digit") }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard let b = peek(), isDigit(b) else { throw unexpected("a digit") }
            skipDigits()
        }
        // A number must end at a delimiter: `01`, `1.5.2` and `-` are errors, not two tokens.
        if let b = peek(), isDigit(b) || b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
            || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") {
            throw fail(.invalidNumber)
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }

    private func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }

    private mutating func skipDigits() {
        while let b = peek(), isDigit(b) { position += 1 }
    }
}
