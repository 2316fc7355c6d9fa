import ScheddCrypto
import XCTest
@testable import ScheddPush

/// Round trips with keys generated in the test, and bodies that must be refused with the rule they
/// break (never a crash, never a partial plaintext).
final class WebPushRoundTripTests: XCTestCase {
    func testRoundTrip_withGeneratedKeys() throws {
        let keys = try WebPushKeys.generate()
        XCTAssertEqual(keys.publicKey.count, 65)
        XCTAssertEqual(keys.publicKey.first, 0x04)
        XCTAssertEqual(keys.privateKey.count, 32)
        XCTAssertEqual(keys.authSecret.count, 16)
        for plaintext in [[], Array("{\"bk\":{\"local\":{}}}".utf8), [UInt8](repeating: 0xAB, count: 3993)] {
            let body = try WebPush.encrypt(plaintext, receiverPublicKey: keys.publicKey, authSecret: keys.authSecret)
            XCTAssertLessThanOrEqual(body.count, WebPush.maximumMessageLength)
            XCTAssertEqual(try WebPush.decrypt(body, keys: keys), plaintext)
        }
    }

    func testTwoEncryptions_shareNeitherSaltNorSenderKey() throws {
        let keys = try WebPushKeys.generate()
        let first = try WebPush.encrypt([1], receiverPublicKey: keys.publicKey, authSecret: keys.authSecret)
        let second = try WebPush.encrypt([1], receiverPublicKey: keys.publicKey, authSecret: keys.authSecret)
        XCTAssertNotEqual(Array(first.prefix(16)), Array(second.prefix(16)))
        XCTAssertNotEqual(Array(first[21..<86]), Array(second[21..<86]))
    }

    func testGeneratedKeys_reloadFromTheirBytes() throws {
        let keys = try WebPushKeys.generate()
        XCTAssertEqual(try WebPushKeys(privateKey: keys.privateKey, publicKey: keys.publicKey, authSecret: keys.authSecret), keys)
    }

    func testKeysThatDoNotBelongTogether_areRefused() throws {
        let one = try WebPushKeys.generate(), other = try WebPushKeys.generate()
        XCTAssertThrowsError(try WebPushKeys(privateKey: one.privateKey, publicKey: other.publicKey, authSecret: one.authSecret)) {
            XCTAssertEqual(($0 as? PushCryptoError)?.kind, .invalidKey)
        }
        XCTAssertThrowsError(try WebPushKeys(privateKey: one.privateKey, publicKey: one.publicKey, authSecret: [1, 2])) {
            XCTAssertEqual(($0 as? PushCryptoError)?.kind, .invalidKey)
        }
    }

    func testWrongReceiverKey_orWrongAuthSecret_failsAuthentication() throws {
        let keys = try WebPushKeys.generate(), stranger = try WebPushKeys.generate()
        let body = try WebPush.encrypt(Array("hello".utf8), receiverPublicKey: keys.publicKey, authSecret: keys.authSecret)
        XCTAssertThrowsError(try WebPush.decrypt(body, keys: stranger)) {
            XCTAssertEqual(($0 as? PushCryptoError)?.kind, .authenticationFailed)
        }
        let otherSecret = try WebPushKeys(privateKey: keys.privateKey, publicKey: keys.publicKey,
                                          authSecret: [UInt8](repeating: 9, count: 16))
        XCTAssertThrowsError(try WebPush.decrypt(body, keys: otherSecret)) {
            XCTAssertEqual(($0 as? PushCryptoError)?.kind, .authenticationFailed)
        }
    }

    func testEveryFlippedByte_isRefused_neverCrashes() throws {
        let keys = try WebPushVectorTests.receiverKeys()
        let body = WebPushVectorTests.b(WebPushVectorTests.body)
        // The record size (bytes 16–19) is not authenticated: RFC 8188 only bounds the records by it,
        // so a larger value still reads one record. Every other byte is covered by the tag or the
        // key agreement; a smaller record size is refused below.
        for index in body.indices where !(16..<20).contains(index) {
            var changed = body
            changed[index] ^= 0x80
            XCTAssertThrowsError(try WebPush.decrypt(changed, keys: keys), "byte \(index)")
        }
    }

    func testSmallerRecordSize_splitsTheRecord_andIsRefused() throws {
        var body = WebPushVectorTests.b(WebPushVectorTests.body)
        body[18] = 0x00
        body[19] = 0x20 // rs 32: the 58-byte record would be two
        XCTAssertThrowsError(try WebPush.decrypt(body, keys: try WebPushVectorTests.receiverKeys())) {
            XCTAssertEqual(($0 as? PushCryptoError)?.kind, .invalidHeader)
        }
    }

    func testEveryTruncation_isRefused_withAKind() throws {
        let keys = try WebPushVectorTests.receiverKeys()
        let body = WebPushVectorTests.b(WebPushVectorTests.body)
        for length in 0..<body.count {
            XCTAssertThrowsError(try WebPush.decrypt(Array(body.prefix(length)), keys: keys)) { error in
                let kind = (error as? PushCryptoError)?.kind
                XCTAssertTrue([.truncated, .authenticationFailed, .invalidHeader].contains(kind), "length \(length): \(error)")
            }
        }
    }

    func testKeyIDThatIsNotA65ByteKey_isRefused() throws {
        let keys = try WebPushKeys.generate()
        let header = try ContentCodingHeader(salt: [UInt8](repeating: 1, count: 16), recordSize: 4096, keyID: [1, 2])
        let body = try ContentCoding.encrypt([1], header: header, inputKeyingMaterial: [UInt8](repeating: 2, count: 16))
        XCTAssertThrowsError(try WebPush.decrypt(body, keys: keys)) { error in
            XCTAssertEqual((error as? PushCryptoError)?.kind, .invalidHeader)
            XCTAssertTrue("\(error)".contains("65-byte"), "\(error)")
        }
    }

    func testSenderKeyOffTheCurve_isRefused() throws {
        let keys = try WebPushVectorTests.receiverKeys()
        var body = WebPushVectorTests.b(WebPushVectorTests.body)
        body[60] ^= 0x01 // inside the sender's public key in the header
        XCTAssertThrowsError(try WebPush.decrypt(body, keys: keys)) { error in
            XCTAssertEqual((error as? PushCryptoError)?.kind, .invalidKey)
            XCTAssertTrue("\(error)".contains("sender public key"), "\(error)")
        }
    }

    func testMoreThanOneRecord_isRefused() throws {
        let keys = try WebPushKeys.generate()
        let body = try WebPush.encrypt([UInt8](repeating: 5, count: 30), receiverPublicKey: keys.publicKey,
                                       authSecret: keys.authSecret, recordSize: 64)
        XCTAssertEqual(try WebPush.decrypt(body, keys: keys).count, 30)
        let header = try ContentCodingHeader.parse(body)
        let ikm = try WebPush.inputKeyingMaterial(keys: keys, senderPublicKey: header.keyID)
        let twoRecords = try ContentCoding.encrypt([UInt8](repeating: 5, count: 60), header: header, inputKeyingMaterial: ikm)
        XCTAssertThrowsError(try WebPush.decrypt(twoRecords, keys: keys)) { error in
            XCTAssertEqual((error as? PushCryptoError)?.kind, .invalidHeader)
            XCTAssertTrue("\(error)".contains("single record"), "\(error)")
        }
    }

    func testOver4096Bytes_isRefusedBeforeAnyCrypto() throws {
        let keys = try WebPushKeys.generate()
        XCTAssertThrowsError(try WebPush.decrypt([UInt8](repeating: 0, count: 4097), keys: keys)) {
            XCTAssertEqual(($0 as? PushCryptoError)?.kind, .tooLarge)
        }
        XCTAssertThrowsError(try WebPush.encrypt([UInt8](repeating: 0, count: 3994), receiverPublicKey: keys.publicKey,
                                                 authSecret: keys.authSecret)) {
            XCTAssertEqual(($0 as? PushCryptoError)?.kind, .tooLarge)
        }
    }

    func testBase64URL_roundTripsAndRejectsNonCanonical() {
        for length in 0...9 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + 250) }
            XCTAssertEqual(Base64URL.decode(Base64URL.encode(bytes)), bytes)
        }
        XCTAssertEqual(Base64URL.decode("AQI="), [1, 2])
        XCTAssertNil(Base64URL.decode("AQJ"), "non-zero trailing bits")
        XCTAssertNil(Base64URL.decode("A"), "length 1 mod 4")
        XCTAssertNil(Base64URL.decode("AQ+/"), "standard alphabet")
    }
}
