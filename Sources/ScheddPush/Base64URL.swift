/// base64url without padding (RFC 4648 §5), as Web Push and UnifiedPush write keys
/// ("p256dh", "auth", the VAPID key).
///
/// Decoding accepts input with or without `=` padding and rejects any other character, a length
/// that is 1 modulo 4, and non-zero trailing bits. Linear in the input; never traps.
public enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `bytes` as unpadded base64url text.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let remaining = bytes.count - index
            let b0 = UInt32(bytes[index])
            let b1 = remaining > 1 ? UInt32(bytes[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(bytes[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(group >> 18 & 63)])
            out.append(alphabet[Int(group >> 12 & 63)])
            if remaining > 1 { out.append(alphabet[Int(group >> 6 & 63)]) }
            if remaining > 2 { out.append(alphabet[Int(group & 63)]) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of base64url `text`, or nil when it is not base64url.
    public static func decode(_ text: String) -> [UInt8]? {
        var digits: [UInt32] = []
        var utf8 = Array(text.utf8)
        while utf8.last == UInt8(ascii: "=") { utf8.removeLast() }
        digits.reserveCapacity(utf8.count)
        for char in utf8 {
            switch char {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): digits.append(UInt32(char - UInt8(ascii: "A")))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): digits.append(UInt32(char - UInt8(ascii: "a")) + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits.append(UInt32(char - UInt8(ascii: "0")) + 52)
            case UInt8(ascii: "-"): digits.append(62)
            case UInt8(ascii: "_"): digits.append(63)
            default: return nil
            }
        }
        guard digits.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count * 3 / 4)
        var index = 0
        while index < digits.count {
            let count = min(4, digits.count - index)
            var group: UInt32 = 0
            for offset in 0..<4 { group = group << 6 | (offset < count ? digits[index + offset] : 0) }
            let produced = count - 1
            // Bits below the last whole byte must be zero (canonical encoding).
            if count < 4, group & ((UInt32(1) << UInt32(8 * (3 - produced))) - 1) != 0 { return nil }
            for byte in 0..<produced { out.append(UInt8(truncatingIfNeeded: group >> UInt32(16 - 8 * byte))) }
            index += 4
        }
        return out
    }
}
