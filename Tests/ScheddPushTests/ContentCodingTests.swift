import ScheddCrypto
import XCTest
@testable import ScheddPush

/// RFC 8188 §3's examples, and the header and padding rules of §2 on bodies built to break them.
final class ContentCodingTests: XCTestCase {
    // §3.1: one record, rs 4096, no key id.
    static let example1IKM = "yqdlZ-tYemfogSmv7Ws5PQ"
    static let example1 = "I1BsxtFttlv3u_Oo94xnmwAAEAAA-NAVub2qFgBEuQKRapoZu-IxkIva3MEB1PD-ly8Thjg"
    static let example1PRK = "zyeH5phsIsgUyd4oiSEIy35x-gIi4aM7y0hCF8mwn9g"
    static let example1CEK = "_wniytB-ofscZDh4tbSjHw"
    static let example1Nonce = "Bcs8gkIRKLI8GeI8"
    // §3.2: two records of rs 25, key id "a1", one byte of padding.
    static let example2IKM = "BO3ZVPxUlnLORbVGMpbT1Q"
    static let example2 = "uNCkWiNYzKTnBN9ji3-qWAAAABkCYTHOG8chz_gnvgOqdGYovxyjuqRyJFjEDyoF1Fvkj6hQPdPHI51OEUKEpgz3SsLWIqS_uA"

    let b = WebPushVectorTests.b

    func testExample1_decrypts_andItsKeyScheduleMatches() throws {
        let body = b(Self.example1)
        let header = try ContentCodingHeader.parse(body)
        XCTAssertEqual(header.recordSize, 4096)
        XCTAssertEqual(header.keyID, [])
        let prk = try LibCrypto.hkdfExtract(salt: header.salt, inputKeyingMaterial: b(Self.example1IKM))
        XCTAssertEqual(Base64URL.encode(prk), Self.example1PRK)
        let (cek, nonce) = try ContentCoding.keys(salt: header.salt, inputKeyingMaterial: b(Self.example1IKM))
        XCTAssertEqual(Base64URL.encode(cek), Self.example1CEK)
        XCTAssertEqual(Base64URL.encode(nonce), Self.example1Nonce)
        XCTAssertEqual(try ContentCoding.decrypt(body, inputKeyingMaterial: b(Self.example1IKM)), Array("I am the walrus".utf8))
    }

    func testExample1_encrypts_toThePublishedBody() throws {
        let header = try ContentCodingHeader(salt: Array(b(Self.example1).prefix(16)), recordSize: 4096, keyID: [])
        let body = try ContentCoding.encrypt(Array("I am the walrus".utf8), header: header,
                                             inputKeyingMaterial: b(Self.example1IKM))
        XCTAssertEqual(Base64URL.encode(body), Self.example1)
    }

    func testExample2_twoRecordsWithKeyID_decrypt() throws {
        let body = b(Self.example2)
        let header = try ContentCodingHeader.parse(body)
        XCTAssertEqual(header.recordSize, 25)
        XCTAssertEqual(header.keyID, Array("a1".utf8))
        XCTAssertEqual(body.count - header.encodedLength, 50, "two full records of 25")
        XCTAssertEqual(try ContentCoding.decrypt(body, inputKeyingMaterial: b(Self.example2IKM)), Array("I am the walrus".utf8))
    }

    func testExample2_cutAfterTheFirstRecord_isRejected_asCutShort() throws {
        let body = Array(b(Self.example2).prefix(23 + 25))
        XCTAssertThrowsError(try ContentCoding.decrypt(body, inputKeyingMaterial: b(Self.example2IKM))) { error in
            let error = error as? PushCryptoError
            XCTAssertEqual(error?.kind, .invalidPadding)
            XCTAssertTrue(error?.message.contains("record 0 ends with delimiter 0x01; the last record needs 0x02") == true,
                          error?.message ?? "")
        }
    }

    func testHeader_shorterThanFixedPart_isTruncated() {
        for length in [0, 1, 16, 20] {
            XCTAssertThrowsError(try ContentCodingHeader.parse([UInt8](repeating: 7, count: length))) { error in
                XCTAssertEqual((error as? PushCryptoError)?.kind, .truncated, "length \(length)")
            }
        }
    }

    func testHeader_keyIDPastTheEnd_isTruncated() {
        var body = [UInt8](repeating: 0, count: 16) + [0, 0, 16, 0] + [65]
        body += [UInt8](repeating: 4, count: 64)
        XCTAssertThrowsError(try ContentCodingHeader.parse(body)) { error in
            XCTAssertEqual((error as? PushCryptoError)?.kind, .truncated)
            XCTAssertTrue((error as? PushCryptoError)?.message.contains("key id of 65 bytes") == true)
        }
    }

    func testHeader_recordSizeBelow18_isRejected() {
        let body = [UInt8](repeating: 0, count: 16) + [0, 0, 0, 17] + [0] + [UInt8](repeating: 0, count: 40)
        XCTAssertThrowsError(try ContentCodingHeader.parse(body)) { error in
            XCTAssertEqual((error as? PushCryptoError)?.kind, .invalidHeader)
            XCTAssertTrue((error as? PushCryptoError)?.message.contains("below the minimum of 18") == true)
        }
    }

    func testHeader_roundTrips() throws {
        let header = try ContentCodingHeader(salt: [UInt8](1...16), recordSize: 0x0102_0304, keyID: [9, 8, 7])
        XCTAssertEqual(try ContentCodingHeader.parse(header.encoded() + [1, 2]), header)
    }

    func testNoRecordAfterHeader_isTruncated() throws {
        let header = try ContentCodingHeader(salt: [UInt8](1...16), recordSize: 4096, keyID: [])
        XCTAssertThrowsError(try ContentCoding.decrypt(header.encoded(), inputKeyingMaterial: [UInt8](1...16))) { error in
            XCTAssertEqual((error as? PushCryptoError)?.kind, .truncated)
        }
    }

    func testTrailingRecordTooShortForItsTag_isTruncated() throws {
        var body = b(Self.example2)
        body += [1, 2, 3]
        XCTAssertThrowsError(try ContentCoding.decrypt(body, inputKeyingMaterial: b(Self.example2IKM))) { error in
            XCTAssertEqual((error as? PushCryptoError)?.kind, .truncated)
        }
    }

    /// Padding rules on records sealed by hand with the right key, so only the plaintext is wrong.
    func testPaddingRules_onHandSealedRecords() throws {
        let ikm = [UInt8](repeating: 0x11, count: 16)
        let header = try ContentCodingHeader(salt: [UInt8](repeating: 0x22, count: 16), recordSize: 64, keyID: [])
        let (key, nonce) = try ContentCoding.keys(salt: header.salt, inputKeyingMaterial: ikm)
        func body(_ records: [[UInt8]]) throws -> [UInt8] {
            var out = header.encoded()
            for (index, record) in records.enumerated() {
                out += try LibCrypto.aes128gcmSeal(key: key, nonce: ContentCoding.recordNonce(nonce, index), plaintext: record)
            }
            return out
        }
        // Good: data, delimiter 2, zeros.
        XCTAssertEqual(try ContentCoding.decrypt(try body([[0x41, 0x42, 0x02, 0, 0, 0]]), inputKeyingMaterial: ikm), [0x41, 0x42])
        // Zero bytes inside the data are data, not padding.
        XCTAssertEqual(try ContentCoding.decrypt(try body([[0x00, 0x41, 0x00, 0x02, 0]]), inputKeyingMaterial: ikm),
                       [0x00, 0x41, 0x00])
        let bad: [([[UInt8]], String)] = [
            ([[0, 0, 0, 0]], "is all padding"),
            ([[0x41, 0x03, 0]], "delimiter 0x03; the last record needs 0x02"),
            ([[0x41, 0x01]], "the last record needs 0x02"),
            ([[UInt8](repeating: 0x41, count: 47) + [0x02], [0x41, 0x02]], "record 0 ends with delimiter 0x02; a record before the last needs 0x01"),
        ]
        for (records, expected) in bad {
            XCTAssertThrowsError(try ContentCoding.decrypt(try body(records), inputKeyingMaterial: ikm)) { error in
                XCTAssertEqual((error as? PushCryptoError)?.kind, .invalidPadding)
                XCTAssertTrue((error as? PushCryptoError)?.message.contains(expected) == true,
                              "\((error as? PushCryptoError)?.message ?? "") lacks \(expected)")
            }
        }
    }

    func testMultiRecordRoundTrip_atEveryLengthAroundTheBoundaries() throws {
        let ikm = [UInt8](repeating: 0x33, count: 16)
        let header = try ContentCodingHeader(salt: [UInt8](repeating: 0x44, count: 16), recordSize: 20, keyID: [1])
        for length in 0...12 {
            let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) }
            let body = try ContentCoding.encrypt(plaintext, header: header, inputKeyingMaterial: ikm)
            XCTAssertEqual(try ContentCoding.decrypt(body, inputKeyingMaterial: ikm), plaintext, "length \(length)")
        }
    }
}
