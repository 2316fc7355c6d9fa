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
        do throws(JSONError) {
            let tape = try JSONTape(parsing: buffer, maxDepth: maxDepth)
            return .success(tape.value(at: 0))
        } catch {
            return .failure(error)
        }
    }
}

/// The iterative parser behind `JSONValue.parse` and `JSONTape`: checks the grammar and appends one
/// `JSONTape.Node` per value (and per object key) in document order. One instance parses one document.
///
/// Invariant: `position` never exceeds `bytes.count`; every read goes through `peek()` (which
/// returns nil at the end) or follows an explicit bounds check.
struct JSONParser {
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

    /// The whole input as one value followed only by whitespace, appended to `nodes` (see `JSONTape`).
    mutating func parseDocument(into nodes: inout [JSONTape.Node]) throws(JSONError) {
        // The node index of every open container; its node's `count` grows as elements complete.
        var stack: [Int] = []
        stack.reserveCapacity(8)
        while true {
            // Parse one value, or open a container and loop to parse its first element.
            skipWhitespace()
            guard let first = peek() else { throw fail(.unexpectedEnd) }
            switch first {
            case UInt8(ascii: "{"):
                guard stack.count < maxDepth else { throw fail(.tooDeep(limit: maxDepth)) }
                position += 1
                skipWhitespace()
                if peek() == UInt8(ascii: "}") {
                    position += 1
                    nodes.append(JSONTape.Node(.object, next: nodes.count + 1))
                } else {
                    stack.append(nodes.count)
                    nodes.append(JSONTape.Node(.object, next: 0))
                    try parseKey(into: &nodes)
                    continue
                }
            case UInt8(ascii: "["):
                guard stack.count < maxDepth else { throw fail(.tooDeep(limit: maxDepth)) }
                position += 1
                skipWhitespace()
                if peek() == UInt8(ascii: "]") {
                    position += 1
                    nodes.append(JSONTape.Node(.array, next: nodes.count + 1))
                } else {
                    stack.append(nodes.count)
                    nodes.append(JSONTape.Node(.array, next: 0))
                    continue
                }
            case UInt8(ascii: "\""): try appendString(to: &nodes)
            case UInt8(ascii: "t"): try parseLiteral("true"); nodes.append(JSONTape.Node(.true, next: nodes.count + 1))
            case UInt8(ascii: "f"): try parseLiteral("false"); nodes.append(JSONTape.Node(.false, next: nodes.count + 1))
            case UInt8(ascii: "n"): try parseLiteral("null"); nodes.append(JSONTape.Node(.null, next: nodes.count + 1))
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = position
                try parseNumber()
                nodes.append(JSONTape.Node(.number, start: start, end: position, next: nodes.count + 1))
            default: throw unexpected("a value")
            }

            // Count the finished value in the innermost open container; close containers as they end.
            while true {
                guard let top = stack.last else {
                    skipWhitespace()
                    guard position == bytes.count else { throw fail(.trailingData) }
                    return
                }
                skipWhitespace()
                nodes[top].count += 1
                if nodes[top].kind == .object {
                    if peek() == UInt8(ascii: ",") {
                        position += 1
                        skipWhitespace()
                        try parseKey(into: &nodes)
                    } else if peek() == UInt8(ascii: "}") {
                        position += 1
                        nodes[top].next = nodes.count
                        stack.removeLast()
                        continue
                    } else {
                        throw unexpected("',' or '}'")
                    }
                } else {
                    if peek() == UInt8(ascii: ",") {
                        position += 1
                    } else if peek() == UInt8(ascii: "]") {
                        position += 1
                        nodes[top].next = nodes.count
                        stack.removeLast()
                        continue
                    } else {
                        throw unexpected("',' or ']'")
                    }
                }
                break
            }
        }
    }

    /// A string literal at `position` (its opening quote) as a `.string` node over its raw bytes.
    private mutating func appendString(to nodes: inout [JSONTape.Node]) throws(JSONError) {
        let start = position + 1
        let (escaped, ascii) = try skipString()
        nodes.append(JSONTape.Node(.string, start: start, end: position - 1, next: nodes.count + 1, escaped: escaped,
                                   ascii: ascii))
    }

    /// `"key" :` with the whitespace around the colon, the key appended as a `.string` node; leaves
    /// `position` before the member's value.
    private mutating func parseKey(into nodes: inout [JSONTape.Node]) throws(JSONError) {
        guard peek() == UInt8(ascii: "\"") else { throw unexpected("a string key") }
        try appendString(to: &nodes)
        skipWhitespace()
        try expect(UInt8(ascii: ":"), "':'")
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

    /// Moves past a number; `position` starts at its first byte.
    private mutating func parseNumber() throws(JSONError) {
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
    }

    private func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }

    private mutating func skipDigits() {
        while let b = peek(), isDigit(b) { position += 1 }
    }
}
