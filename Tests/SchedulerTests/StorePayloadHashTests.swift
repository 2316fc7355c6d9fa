import SeededRandomness
import XCTest
@testable import Scheduler

/// `payloadHash` is stored in every database (`payloads.hash`, schema 2 on): its value must stay the
/// byte-wise 64-bit FNV-1a of the UTF-8, whatever loop computes it.
final class StorePayloadHashTests: XCTestCase {
    /// The specification's loop, one byte at a time.
    private func bytewiseFNV1a(_ text: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return Int64(bitPattern: hash)
    }

    /// Published FNV-1a 64 test vectors (the empty string, "a", "foobar").
    func testKnownVectors() {
        XCTAssertEqual(UInt64(bitPattern: StoreCoding.payloadHash("")), 0xcbf2_9ce4_8422_2325)
        XCTAssertEqual(UInt64(bitPattern: StoreCoding.payloadHash("a")), 0xaf63_dc4c_8601_ec8c)
        XCTAssertEqual(UInt64(bitPattern: StoreCoding.payloadHash("foobar")), 0x8594_4171_f739_67e8)
    }

    /// 500 seeded strings of every length from 0 to 40 and up to 20,000 bytes, multi-byte characters
    /// included, each hashed as the byte-wise loop does (lengths not a multiple of 8 test the tail).
    func testEqualsTheBytewiseLoop_onSeededStrings() {
        var random = SplitMix64(seed: 0x5eed_f00d)
        let alphabet = Array("abcXYZ019{}\":, é€😀\u{0}")
        for n in 0..<500 {
            let length = n < 41 ? n : random.int(41...20_000)
            let text = String((0..<length).map { _ in alphabet[random.below(alphabet.count)] })
            XCTAssertEqual(StoreCoding.payloadHash(text), bytewiseFNV1a(text), "length \(length)")
        }
        // A string that is not native UTF-8 storage (a substring's copy) hashes the same.
        let long = String(repeating: "payload ", count: 2_000)
        let sliced = String(long.dropFirst(3))
        XCTAssertEqual(StoreCoding.payloadHash(sliced), bytewiseFNV1a(sliced))
    }
}
