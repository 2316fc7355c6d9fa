/// Lower-case hexadecimal text of bytes: the one formatter for digests (`SHA256.hex`, the store's digest
/// column), connection tokens and the bytes named in errors.
public enum Hex {
    /// `bytes` as lowercase hexadecimal, two digits per byte (`[0x0f, 0xa0]` → `"0fa0"`). O(n), one allocation
    /// (none up to 7 bytes: a small string).
    public static func lowercase(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for i in 0..<bytes.count {
                let b = bytes[i]
                out[2 * i] = digit(b >> 4)
                out[2 * i + 1] = digit(b & 0xf)
            }
            return bytes.count * 2
        }
    }

    /// `bytes` as lowercase hexadecimal (`lowercase(_:)` for a collection).
    public static func lowercase(_ bytes: some Collection<UInt8>) -> String {
        bytes.withContiguousStorageIfAvailable { lowercase(UnsafeRawBufferPointer($0)) }
            ?? Array(bytes).withUnsafeBytes { lowercase($0) }
    }

    @inline(__always) private static func digit(_ v: UInt8) -> UInt8 {
        v < 10 ? UInt8(ascii: "0") &+ v : UInt8(ascii: "a") &+ (v &- 10)
    }
}
