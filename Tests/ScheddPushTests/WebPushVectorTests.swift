import ScheddCrypto
import XCTest
@testable import ScheddPush

/// RFC 8291 §5 (the worked example) with the intermediate values of its Appendix A: each step of
/// the key schedule is checked on its own, so a failure says which step moved.
final class WebPushVectorTests: XCTestCase {
    // RFC 8291 §5 / Appendix A, base64url as printed there.
    static let plaintext = "When I grow up, I want to be a watermelon"
    static let uaPublic = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let uaPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
    static let asPublic = "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8"
    static let asPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
    static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
    static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
    static let ecdhSecret = "kyrL1jIIOHEzg3sM2ZWRHDRB62YACZhhSlknJ672kSs"
    static let authPRK = "Snr3JMxaHVDXHWJn5wdC52WjpCtd2EIEGBykDcZW32k"
    static let keyInfo = "V2ViUHVzaDogaW5mbwAEJXGyvs3942BVGq8e0PTNNmwRzr5VX4m8t7GGpTM5FzFo7OLr4BhZe9MEebhuPI-OztV3"
        + "ylkYfpJGmQ22ggCLDgT-M_SrDepxkU21WCP3O1SUj0EwbZIHMtu5pZpTKGSCIA5Zent7wmC6HCJ5mFgJkuk5cwAv"
        + "MBKiiujwa7t45ewP"
    static let ikm = "S4lYMb_L0FxCeq0WhDx813KgSYqU26kOyzWUdsXYyrg"
    static let prk = "09_eUZGrsvxChDCGRCdkLiDXrReGOEVeSCdCcPBSJSc"
    static let cek = "oIhVW04MRdy2XN9CiKLxTg"
    static let nonce = "4h_95klXJ5E_qnoN"
    static let header = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmY"
        + "WAmS6TlzAC8wEqKK6PBru3jl7A8"
    static let ciphertext = "8pfeW0KbunFT06SuDKoJH9Ql87S1QUrdirN6GcG7sFz1y1sqLgVi1VhjVkHsUoEsbI_0LpXMuGvnzQ"
    static let body = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmY"
        + "WAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexS"
        + "gSxsj_Qulcy4a-fN"

    static func b(_ text: String) -> [UInt8] {
        guard let bytes = Base64URL.decode(text) else { preconditionFailure("bad vector \(text)") }
        return bytes
    }

    static func receiverKeys() throws -> WebPushKeys {
        try WebPushKeys(privateKey: b(uaPrivate), publicKey: b(uaPublic), authSecret: b(authSecret))
    }

    func testBody_isHeaderThenCiphertext() {
        XCTAssertEqual(Self.b(Self.body), Self.b(Self.header) + Self.b(Self.ciphertext))
        XCTAssertEqual(Self.b(Self.body).count, 144)
    }

    func testECDH_givesTheSharedSecret_fromBothSides() throws {
        let receiver = try LibCrypto.p256SharedSecret(privateKey: Self.b(Self.uaPrivate), publicKey: Self.b(Self.uaPublic),
                                                      peerPublicKey: Self.b(Self.asPublic))
        let sender = try LibCrypto.p256SharedSecret(privateKey: Self.b(Self.asPrivate), publicKey: Self.b(Self.asPublic),
                                                    peerPublicKey: Self.b(Self.uaPublic))
        XCTAssertEqual(Base64URL.encode(receiver), Self.ecdhSecret)
        XCTAssertEqual(Base64URL.encode(sender), Self.ecdhSecret)
    }

    func testKeySchedule_matchesAppendixA_stepByStep() throws {
        let secret = Self.b(Self.ecdhSecret)
        let authPRK = try LibCrypto.hkdfExtract(salt: Self.b(Self.authSecret), inputKeyingMaterial: secret)
        XCTAssertEqual(Base64URL.encode(authPRK), Self.authPRK)
        let info = WebPush.keyInfo(receiverPublicKey: Self.b(Self.uaPublic), senderPublicKey: Self.b(Self.asPublic))
        XCTAssertEqual(Base64URL.encode(info), Self.keyInfo)
        let ikm = try LibCrypto.hkdfExpand(pseudorandomKey: authPRK, info: info, length: 32)
        XCTAssertEqual(Base64URL.encode(ikm), Self.ikm)
        XCTAssertEqual(try WebPush.inputKeyingMaterial(keys: Self.receiverKeys(), senderPublicKey: Self.b(Self.asPublic)),
                       ikm)
        let prk = try LibCrypto.hkdfExtract(salt: Self.b(Self.salt), inputKeyingMaterial: ikm)
        XCTAssertEqual(Base64URL.encode(prk), Self.prk)
        let (cek, nonce) = try ContentCoding.keys(salt: Self.b(Self.salt), inputKeyingMaterial: ikm)
        XCTAssertEqual(Base64URL.encode(cek), Self.cek)
        XCTAssertEqual(Base64URL.encode(nonce), Self.nonce)
    }

    func testDecrypt_workedExample_byteForByte() throws {
        let plaintext = try WebPush.decrypt(Self.b(Self.body), keys: Self.receiverKeys())
        XCTAssertEqual(plaintext, Array(Self.plaintext.utf8))
    }

    func testEncrypt_withTheExamplesSenderAndSalt_reproducesTheBody() throws {
        let body = try WebPush.encrypt(Array(Self.plaintext.utf8), receiverPublicKey: Self.b(Self.uaPublic),
                                       authSecret: Self.b(Self.authSecret),
                                       sender: (Self.b(Self.asPrivate), Self.b(Self.asPublic)), salt: Self.b(Self.salt))
        XCTAssertEqual(Base64URL.encode(body), Self.body)
    }
}
