/// Call arguments read from the body of a D-Bus message in the wire format (D-Bus specification,
/// "Marshaling"), little-endian: `u` and `s` lengths 4-aligned, `t` 8-aligned, `as` a 4-aligned byte
/// length then the strings; strings must be UTF-8 without NUL and end in NUL, as sd-bus checks before
/// the daemon sees them. Untrusted bytes never trap; every length is checked against what is there.
///
/// Used by the dispatch fuzzer and the tests, to give `SchedulerCall` what sd-bus would give it.
public struct WireArguments: CallArguments {
    private let bytes: [UInt8]
    private var position = 0

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var isAtEnd: Bool { position == bytes.count }

    private mutating func align(_ n: Int) throws(CallArgumentError) {
        let padded = (position + n - 1) / n * n
        guard padded <= bytes.count else { throw CallArgumentError("truncated: padding to \(n) bytes") }
        guard bytes[position..<padded].allSatisfy({ $0 == 0 }) else { throw CallArgumentError("non-zero padding") }
        position = padded
    }

    private mutating func take(_ n: Int) throws(CallArgumentError) -> ArraySlice<UInt8> {
        guard n >= 0, bytes.count - position >= n else { throw CallArgumentError("truncated: \(n) bytes expected") }
        defer { position += n }
        return bytes[position..<(position + n)]
    }

    public mutating func readUInt32() throws(CallArgumentError) -> UInt32 {
        try align(4)
        return try take(4).reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    public mutating func readUInt64() throws(CallArgumentError) -> UInt64 {
        try align(8)
        return try take(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    public mutating func readString(_ what: String, maxBytes: Int) throws(CallArgumentError) -> String {
        let length = Int(try readUInt32())
        guard length <= maxBytes else { throw .overCap(what, bytes: maxBytes) }
        return try readStringBody(length)
    }

    private mutating func readStringBody(_ length: Int) throws(CallArgumentError) -> String {
        let body = try take(length)
        guard try take(1).first == 0 else { throw CallArgumentError("string not terminated by NUL") }
        guard !body.contains(0), let text = String(validating: body, as: UTF8.self) else {
            throw CallArgumentError("string is not valid UTF-8 without NUL")
        }
        return text
    }

    public mutating func readStrings(_ what: String, maxCount: Int, maxBytes: Int) throws(CallArgumentError) -> [String] {
        let length = Int(try readUInt32())
        // D-Bus caps an array at 64 MiB; a stock bus message at 32 MiB.
        guard length <= 1 << 26 else { throw CallArgumentError("array longer than 64 MiB") }
        try align(4)  // string elements are 4-aligned; the array's length counts from the first element
        let end = position + length
        guard end <= bytes.count else { throw CallArgumentError("truncated array") }
        var strings: [String] = []
        var total = 0
        while position < end {
            try align(4)
            let count = Int(try readUInt32())
            total += count
            guard strings.count < maxCount, total <= maxBytes else {
                throw .overCap(what, entries: maxCount, bytes: maxBytes, count: strings.count + 1, total: total)
            }
            strings.append(try readStringBody(count))
        }
        guard position == end else { throw CallArgumentError("array elements overrun its length") }
        return strings
    }

    /// The wire form of arguments, for tests and seed corpora: each value marshalled in order.
    public enum Value: Sendable { case string(String), strings([String]), uint32(UInt32), uint64(UInt64) }

    public static func marshal(_ values: [Value]) -> [UInt8] {
        var out: [UInt8] = []
        func pad(_ n: Int) { while out.count % n != 0 { out.append(0) } }
        func u32(_ v: UInt32) { pad(4); out += (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        func string(_ s: String) { u32(UInt32(s.utf8.count)); out += Array(s.utf8); out.append(0) }
        for value in values {
            switch value {
            case .string(let s): string(s)
            case .uint32(let v): u32(v)
            case .uint64(let v): pad(8); out += (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
            case .strings(let list):
                u32(0)
                let lengthAt = out.count - 4
                pad(4)
                let start = out.count
                for (i, s) in list.enumerated() {
                    if i > 0 { pad(4) }
                    string(s)
                }
                let length = UInt32(out.count - start)
                for i in 0..<4 { out[lengthAt + i] = UInt8(truncatingIfNeeded: length >> (8 * i)) }
            }
        }
        return out
    }
}
