/// SHA-256 (FIPS 180-4) of a byte sequence: content hashes of zone files and the engine's push digests.
///
/// Pure and allocation-light: O(n) in the input, whole blocks read in place, the 64-word schedule on the
/// stack. Not constant
/// time (nothing secret is hashed here). `hex` is the lowercase hexadecimal form that `sha256sum` prints.
public enum SHA256 {
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    /// The 32-byte digest of `bytes`.
    public static func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
        if let direct = bytes.withContiguousStorageIfAvailable({ digest(UnsafeRawBufferPointer($0)) }) { return direct }
        return Array(bytes).withUnsafeBytes { digest($0) }
    }

    /// The 32-byte digest of the bytes in `buffer`: whole blocks are read in place, only the padded tail
    /// (one or two blocks) is copied; the message schedule lives on the stack.
    public static func digest(_ buffer: UnsafeRawBufferPointer) -> [UInt8] {
        var state = State()
        let whole = buffer.count / 64 * 64
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            k.withUnsafeBufferPointer { k in
                var offset = 0
                while offset < whole {
                    state.compress(UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + 64)]), w, k)
                    offset += 64
                }
                // The tail, 0x80, zeros and the 64-bit length in bits: one block, or two when the tail has 56+ bytes.
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { tail in
                    let rest = buffer.count - whole
                    tail.initialize(repeating: 0)
                    for i in 0..<rest { tail[i] = buffer[whole + i] }
                    tail[rest] = 0x80
                    let length = rest < 56 ? 64 : 128
                    let bits = UInt64(buffer.count) &* 8
                    for i in 0..<8 { tail[length - 1 - i] = UInt8(truncatingIfNeeded: bits >> UInt64(8 * i)) }
                    let raw = UnsafeRawBufferPointer(tail)
                    state.compress(UnsafeRawBufferPointer(rebasing: raw[0..<64]), w, k)
                    if length == 128 { state.compress(UnsafeRawBufferPointer(rebasing: raw[64..<128]), w, k) }
                }
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for word in [state.a, state.b, state.c, state.d, state.e, state.f, state.g, state.h] {
            out.append(UInt8(truncatingIfNeeded: word >> 24)); out.append(UInt8(truncatingIfNeeded: word >> 16))
            out.append(UInt8(truncatingIfNeeded: word >> 8)); out.append(UInt8(truncatingIfNeeded: word))
        }
        return out
    }

    /// The eight working hash words between blocks.
    private struct State {
        var a: UInt32 = 0x6a09e667, b: UInt32 = 0xbb67ae85, c: UInt32 = 0x3c6ef372, d: UInt32 = 0xa54ff53a
        var e: UInt32 = 0x510e527f, f: UInt32 = 0x9b05688c, g: UInt32 = 0x1f83d9ab, h: UInt32 = 0x5be0cd19

        /// Mixes one 64-byte block into the state; `w` is scratch for the 64-word message schedule.
        @inline(__always)
        mutating func compress(_ block: UnsafeRawBufferPointer, _ w: UnsafeMutableBufferPointer<UInt32>,
                               _ k: UnsafeBufferPointer<UInt32>) {
            for i in 0..<16 {
                w[i] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self))
            }
            for i in 16..<64 {
                let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
                let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
                w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = (self.a, self.b, self.c, self.d, self.e, self.f, self.g, self.h)
            for i in 0..<64 {
                let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
                let choice = (e & f) ^ (~e & g)
                let t1 = hh &+ s1 &+ choice &+ k[i] &+ w[i]
                let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
                let majority = (a & b) ^ (a & c) ^ (b & c)
                let t2 = s0 &+ majority
                (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
            }
            self.a &+= a; self.b &+= b; self.c &+= c; self.d &+= d
            self.e &+= e; self.f &+= f; self.g &+= g; self.h &+= hh
        }
    }

    /// The digest as 64 lowercase hexadecimal digits.
    public static func hex(_ bytes: some Collection<UInt8>) -> String {
        hexString(digest(bytes))
    }

    /// The digest of a string's UTF-8 bytes, as hex (read in place when the string is stored contiguously).
    public static func hex(_ text: String) -> String {
        var text = text
        return text.withUTF8 { hexString(digest(UnsafeRawBufferPointer($0))) }
    }

    private static func hexString(_ digest: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: 2 * digest.count) { out in
            for (i, byte) in digest.enumerated() {
                out[2 * i] = hexDigit(byte >> 4)
                out[2 * i + 1] = hexDigit(byte & 0xF)
            }
            return 2 * digest.count
        }
    }

    @inline(__always) private static func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x57 + v }

    @inline(__always) private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { x >> n | x << (32 - n) }
}
