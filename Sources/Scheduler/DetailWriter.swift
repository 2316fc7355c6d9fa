/// Writes a `schedules.detail` value: tag/value pairs in `StoreCoding.encodeList`'s format
/// (`<utf8 byte count>:<bytes>` for the tag, then for the value), straight into one byte buffer.
///
/// The same bytes as `StoreCoding.encodeList([tag₁, value₁, tag₂, value₂, …])`, without a `String` per
/// number, per pair and per concatenation: the old encoder was ~15% of a bulk push's instructions
/// (callgrind of `schedd-bench bulkpath`, issue 35). Tags are one ASCII byte; numbers are written in
/// decimal as `String(_:)` writes them. O(bytes written); one growing buffer.
struct DetailWriter {
    private var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(64) }

    /// Adds the pair (`tag`, `value`); nothing when `value` is nil.
    mutating func add(_ tag: Unicode.Scalar, _ value: String?) {
        guard var value else { return }
        addTag(tag)
        value.withUTF8 { utf8 in
            writeDecimal(Int64(utf8.count))
            bytes.append(UInt8(ascii: ":"))
            bytes.append(contentsOf: utf8)
        }
    }

    /// Adds the pair (`tag`, `value` in decimal); nothing when `value` is nil.
    mutating func add(_ tag: Unicode.Scalar, _ value: Int64?) {
        guard let value else { return }
        addTag(tag)
        writeDecimal(Int64(Self.decimalLength(value)))
        bytes.append(UInt8(ascii: ":"))
        writeDecimal(value)
    }

    /// The value as text (nil when empty), for binding.
    var text: String? { bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }

    private mutating func addTag(_ tag: Unicode.Scalar) {
        precondition(tag.isASCII, "detail tags are one ASCII byte")
        bytes.append(UInt8(ascii: "1"))
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(tag.value))
    }

    /// How many bytes `String(value)` has: digits, and "-" for a negative value.
    static func decimalLength(_ value: Int64) -> Int {
        var magnitude = value.magnitude, digits = 1
        while magnitude >= 10 { magnitude /= 10; digits += 1 }
        return digits + (value < 0 ? 1 : 0)
    }

    private mutating func writeDecimal(_ value: Int64) {
        let length = Self.decimalLength(value)
        let end = bytes.count + length
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "-"), count: length))
        bytes.withUnsafeMutableBufferPointer { out in
            // Digits from the last one back; a negative value keeps the "-" at its start.
            var magnitude = value.magnitude, i = end
            repeat {
                i -= 1
                out[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
        }
    }
}
