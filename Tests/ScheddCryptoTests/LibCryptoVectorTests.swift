import Foundation
import ScheddCrypto
import XCTest

/// ScheddCrypto's libcrypto shim against published test vectors: SHA-256 (FIPS 180-2 examples),
/// HKDF-SHA256 (RFC 5869 A.1), RFC 8188 §3.1's key schedule and record opened with AES-128-GCM, and
/// RFC 8291 §5's P-256 ECDH from both sides; plus the refusals of bad keys and tampered records.
final class LibCryptoVectorTests: XCTestCase {
    static func hex(_ text: String) -> [UInt8] {
        var out: [UInt8] = [], chars = Array(text.utf8)
        while chars.count >= 2 { out.append(UInt8(String(decoding: chars.prefix(2), as: UTF8.self), radix: 16)!); chars.removeFirst(2) }
        return out
    }

    static func base64url(_ text: String) -> [UInt8] {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return [UInt8](Data(base64Encoded: s)!)
    }

    func testSHA256_fipsExamples() {
        XCTAssertEqual(SHA256.hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(Hex.lowercase(SHA256.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    func testHKDF_rfc5869TestCase1() throws {
        let prk = try LibCrypto.hkdfExtract(salt: Self.hex("000102030405060708090a0b0c"),
                                            inputKeyingMaterial: [UInt8](repeating: 0x0b, count: 22))
        XCTAssertEqual(Hex.lowercase(prk), "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5")
        let okm = try LibCrypto.hkdfExpand(pseudorandomKey: prk, info: Self.hex("f0f1f2f3f4f5f6f7f8f9"), length: 42)
        XCTAssertEqual(Hex.lowercase(okm), "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    /// RFC 8188 §3.1: the key schedule's PRK, CEK and nonce, and the one record opened to
    /// "I am the walrus" plus its last-record delimiter 0x02; a flipped byte fails authentication.
    func testAES128GCM_opensRFC8188Example1() throws {
        let body = Self.base64url("I1BsxtFttlv3u_Oo94xnmwAAEAAA-NAVub2qFgBEuQKRapoZu-IxkIva3MEB1PD-ly8Thjg")
        let salt = Array(body.prefix(16)), ikm = Self.base64url("yqdlZ-tYemfogSmv7Ws5PQ")
        let prk = try LibCrypto.hkdfExtract(salt: salt, inputKeyingMaterial: ikm)
        XCTAssertEqual(prk, Self.base64url("zyeH5phsIsgUyd4oiSEIy35x-gIi4aM7y0hCF8mwn9g"))
        let cek = try LibCrypto.hkdfExpand(pseudorandomKey: prk, info: Array("Content-Encoding: aes128gcm\0".utf8), length: 16)
        let nonce = try LibCrypto.hkdfExpand(pseudorandomKey: prk, info: Array("Content-Encoding: nonce\0".utf8), length: 12)
        XCTAssertEqual(cek, Self.base64url("_wniytB-ofscZDh4tbSjHw"))
        XCTAssertEqual(nonce, Self.base64url("Bcs8gkIRKLI8GeI8"))
        let record = body[21...]  // salt 16, rs 4, idlen 1, no key id
        XCTAssertEqual(try LibCrypto.aes128gcmOpen(key: cek, nonce: nonce, sealed: record), Array("I am the walrus".utf8) + [2])
        XCTAssertEqual(try LibCrypto.aes128gcmSeal(key: cek, nonce: nonce, plaintext: Array("I am the walrus".utf8) + [2]),
                       Array(record))
        var tampered = Array(record)
        tampered[3] ^= 1
        XCTAssertThrowsError(try LibCrypto.aes128gcmOpen(key: cek, nonce: nonce, sealed: tampered[...]))
    }

    /// RFC 8291 §5: the user agent's and the application server's key pairs give the same ECDH secret.
    func testP256ECDH_rfc8291Example_fromBothSides() throws {
        let uaPublic = Self.base64url("BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4")
        let uaPrivate = Self.base64url("q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94")
        let asPublic = Self.base64url("BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8")
        let asPrivate = Self.base64url("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw")
        let expected = Self.base64url("kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs")
        XCTAssertEqual(try LibCrypto.p256SharedSecret(privateKey: uaPrivate, publicKey: uaPublic, peerPublicKey: asPublic), expected)
        XCTAssertEqual(try LibCrypto.p256SharedSecret(privateKey: asPrivate, publicKey: asPublic, peerPublicKey: uaPublic), expected)
        // Keys that do not belong together, and a point of the wrong length, are refused by name.
        XCTAssertThrowsError(try LibCrypto.validateP256(privateKey: asPrivate, publicKey: uaPublic, role: "receiver key")) { error in
            XCTAssertEqual((error as? PushCryptoError)?.kind, .invalidKey)
        }
        XCTAssertThrowsError(try LibCrypto.validateP256(privateKey: nil, publicKey: Array(uaPublic.prefix(33)), role: "sender key")) { error in
            XCTAssertTrue("\(error)".contains("sender key: a P-256 public key is 65 bytes"), "\(error)")
        }
    }

    func testGeneratedKeys_agree_andRandomBytesDiffer() throws {
        let a = try LibCrypto.generateP256(), b = try LibCrypto.generateP256()
        XCTAssertEqual(a.publicKey.count, LibCrypto.publicKeyLength)
        XCTAssertEqual(try LibCrypto.p256SharedSecret(privateKey: a.privateKey, publicKey: a.publicKey, peerPublicKey: b.publicKey),
                       try LibCrypto.p256SharedSecret(privateKey: b.privateKey, publicKey: b.publicKey, peerPublicKey: a.publicKey))
        XCTAssertEqual(try LibCrypto.randomBytes(32).count, 32)
        XCTAssertNotEqual(try LibCrypto.randomBytes(16), try LibCrypto.randomBytes(16))
    }
}
