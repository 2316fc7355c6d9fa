import ScheddCrypto

/// A new connection token: a UUIDv4 (RFC 9562 §5.4) from OpenSSL's generator, as the UnifiedPush
/// spec suggests (122 random bits; 36 bytes, within its 100-byte limit).
public enum ConnectionToken {
    public static func generate() throws(PushCryptoError) -> String {
        var bytes = try LibCrypto.randomBytes(16)
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        // 8-4-4-4-12 digits.
        return [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { Hex.lowercase(bytes[$0]) }.joined(separator: "-")
    }
}
