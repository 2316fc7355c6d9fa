extension JSONParser {
    /// A string literal; `position` starts at its opening quote and ends after its closing quote.
    ///
    /// Fast path: a string without escapes is validated in place and decoded once. The first
    /// backslash switches to building the bytes in a buffer. Linear in the string's length.
    mutating func parseString() throws(JSONError) -> String {
        position += 1  // the opening quote
        let start = position
        while position < bytes.count {
            let b = bytes[position]
            if b == UInt8(ascii: "\"") {
                let text = UnsafeBufferPointer(rebasing: bytes[start..<position])
                position += 1
                return String(decoding: text, as: UTF8.self)
            }
            if b == UInt8(ascii: "\\") {
                var buffer = [UInt8](UnsafeBufferPointer(rebasing: bytes[start..<position]))
                try parseStringSlowly(into: &buffer)
                return String(decoding: buffer, as: UTF8.self)
            }
            try skipCharacter(b)
        }
        throw fail(.unexpectedEnd)
    }

    /// Checks a string literal without decoding it; `position` starts at its opening quote and ends after
    /// its closing quote. Returns whether it holds an escape (then its raw bytes are not its text) and whether
    /// its raw bytes are all ASCII (false whenever it holds an escape: the escape may stand for any scalar).
    mutating func skipString() throws(JSONError) -> (escaped: Bool, ascii: Bool) {
        var p = position + 1  // past the opening quote; locals, so the loop keeps them in registers
        let bytes = self.bytes
        var ascii = true
        while p < bytes.count {
            let b = bytes[p]
            // Printable ASCII other than the quote and the backslash: the bulk of every string.
            if b >= 0x20 && b < 0x80 && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\") {
                p += 1
                continue
            }
            position = p
            if b == UInt8(ascii: "\"") {
                position += 1
                return (false, ascii)
            }
            if b == UInt8(ascii: "\\") {
                var scratch: [UInt8] = []
                try parseStringSlowly(into: &scratch)
                return (true, false)
            }
            if b >= 0x80 { ascii = false }
            try skipCharacter(b)
            p = position
        }
        position = p
        throw fail(.unexpectedEnd)
    }

    /// Continues a string at its first backslash, collecting the decoded bytes in `buffer`; ends after the
    /// closing quote.
    mutating func parseStringSlowly(into buffer: inout [UInt8]) throws(JSONError) {
        while position < bytes.count {
            let b = bytes[position]
            switch b {
            case UInt8(ascii: "\""):
                position += 1
                return
            case UInt8(ascii: "\\"):
                try parseEscape(into: &buffer)
            default:
                let start = position
                try skipCharacter(b)
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<position]))
            }
        }
        throw fail(.unexpectedEnd)
    }

    /// Moves past one unescaped character that starts with `b`, checking it.
    @inline(__always)
    private mutating func skipCharacter(_ b: UInt8) throws(JSONError) {
        if b < 0x20 { throw fail(.controlCharacter(b)) }
        if b < 0x80 { position += 1; return }
        position += try wellFormedSequenceLength(lead: b)
    }

    /// The length of the well-formed UTF-8 sequence at `position` (Unicode Table 3-7), or an
    /// `.invalidUTF8` error at its first byte.
    ///
    /// | lead      | 2nd byte | 3rd   | 4th   |
    /// |-----------|----------|-------|-------|
    /// | C2..DF    | 80..BF   |       |       |
    /// | E0        | A0..BF   | 80..BF|       |
    /// | E1..EC, EE..EF | 80..BF | 80..BF |  |
    /// | ED        | 80..9F   | 80..BF| (no surrogates) |
    /// | F0        | 90..BF   | 80..BF| 80..BF|
    /// | F1..F3    | 80..BF   | 80..BF| 80..BF|
    /// | F4        | 80..8F   | 80..BF| 80..BF (≤ U+10FFFF) |
    private func wellFormedSequenceLength(lead: UInt8) throws(JSONError) -> Int {
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        default: throw fail(.invalidUTF8)
        }
        guard bytes.count - position >= length, secondRange.contains(bytes[position + 1]) else {
            throw fail(.invalidUTF8)
        }
        for k in 2..<length where bytes[position + k] & 0xC0 != 0x80 {
            throw fail(.invalidUTF8)
        }
        return length
    }

    /// One escape sequence at `position` (a backslash), appended to `buffer` as UTF-8.
    private mutating func parseEscape(into buffer: inout [UInt8]) throws(JSONError) {
        let start = position
        position += 1
        guard let c = peek() else { throw fail(.unexpectedEnd) }
        position += 1
        switch c {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(c)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4(escapeStart: start)
            if (0xDC00...0xDFFF).contains(scalar) { throw JSONError(.loneSurrogate, at: start) }
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed at once by `\u` and a low surrogate.
                guard bytes.count - position >= 2, bytes[position] == UInt8(ascii: "\\"),
                      bytes[position + 1] == UInt8(ascii: "u") else { throw JSONError(.loneSurrogate, at: start) }
                let lowStart = position
                position += 2
                let low = try parseHex4(escapeStart: lowStart)
                guard (0xDC00...0xDFFF).contains(low) else { throw JSONError(.loneSurrogate, at: start) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            appendUTF8(scalar, to: &buffer)
        default:
            throw JSONError(.invalidEscape, at: start)
        }
    }

    /// Four hex digits after `\u`.
    private mutating func parseHex4(escapeStart: Int) throws(JSONError) -> UInt32 {
        guard bytes.count - position >= 4 else { throw JSONError(.invalidEscape, at: escapeStart) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[position]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: throw JSONError(.invalidEscape, at: escapeStart)
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    /// Appends a Unicode scalar value (never a surrogate here) as UTF-8.
    private func appendUTF8(_ v: UInt32, to buffer: inout [UInt8]) {
        switch v {
        case 0..<0x80:
            buffer.append(UInt8(v))
        case 0x80..<0x800:
            buffer.append(UInt8(0xC0 | v >> 6)); buffer.append(UInt8(0x80 | v & 0x3F))
        case 0x800..<0x10000:
            buffer.append(UInt8(0xE0 | v >> 12)); buffer.append(UInt8(0x80 | v >> 6 & 0x3F))
            buffer.append(UInt8(0x80 | v & 0x3F))
        default:
            buffer.append(UInt8(0xF0 | v >> 18)); buffer.append(UInt8(0x80 | v >> 12 & 0x3F))
            buffer.append(UInt8(0x80 | v >> 6 & 0x3F)); buffer.append(UInt8(0x80 | v & 0x3F))
        }
    }
}
