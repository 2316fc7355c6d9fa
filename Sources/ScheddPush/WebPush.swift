import ScheddCrypto

/// Message encryption for Web Push (RFC 8291): an `aes128gcm` body (RFC 8188) whose input keying
/// material comes from ECDH between the sender's one-time key and the receiver's key, mixed with
/// the receiver's auth secret.
///
/// ```
/// ecdh_secret = ECDH(ua_private, as_public)            (as_public is the header's key id)
/// key_info    = "WebPush: info" ‖ 0x00 ‖ ua_public ‖ as_public
/// IKM         = HKDF(salt = auth_secret, ikm = ecdh_secret, info = key_info, L = 32)
/// ```
/// then RFC 8188 with the header's salt. RFC 8291 §4 fixes the rest: the key id is the sender's
/// 65-byte uncompressed public key and the body is a single record. UnifiedPush bounds a message to
/// 4096 bytes; larger bodies are refused before any crypto runs.
public enum WebPush {
    /// The largest push message UnifiedPush delivers (bytes of the encrypted body).
    public static let maximumMessageLength = 4096

    /// The plaintext of `body`, decrypted with the receiver's `keys`.
    ///
    /// Errors name the rule: `.tooLarge` (over 4096 bytes), `.truncated`/`.invalidHeader` (header,
    /// key id not a 65-byte key, more than one record), `.invalidKey` (the sender key is not on
    /// P-256), `.authenticationFailed` (wrong keys or a changed body), `.invalidPadding`.
    public static func decrypt(_ body: [UInt8], keys: WebPushKeys) throws(PushCryptoError) -> [UInt8] {
        guard body.count <= maximumMessageLength else {
            throw PushCryptoError(.tooLarge, "web push: message of \(body.count) bytes is over the 4096-byte limit")
        }
        let header = try ContentCodingHeader.parse(body)
        guard header.keyID.count == LibCrypto.publicKeyLength else {
            throw PushCryptoError(.invalidHeader, "web push: the key id must be the sender's 65-byte uncompressed "
                                  + "P-256 public key, got \(header.keyID.count) bytes")
        }
        let records = body[header.encodedLength...]
        guard records.count <= Int(header.recordSize) else {
            throw PushCryptoError(.invalidHeader, "web push: \(records.count) bytes of records with record size "
                                  + "\(header.recordSize): a push message is a single record")
        }
        let ikm = try inputKeyingMaterial(keys: keys, senderPublicKey: header.keyID)
        return try ContentCoding.decryptRecords(records, header: header, inputKeyingMaterial: ikm)
    }

    /// Encrypts `plaintext` for a receiver as an application server does (used by tests and the
    /// round trip). `sender` and `salt` are fresh random values unless given (given only to
    /// reproduce published examples: reusing them breaks AES-GCM).
    public static func encrypt(_ plaintext: [UInt8], receiverPublicKey: [UInt8], authSecret: [UInt8],
                               sender: (privateKey: [UInt8], publicKey: [UInt8])? = nil, salt: [UInt8]? = nil,
                               recordSize: UInt32 = 4096) throws(PushCryptoError) -> [UInt8] {
        guard authSecret.count == WebPushKeys.authSecretLength else {
            throw PushCryptoError(.invalidKey, "auth secret: must be 16 bytes, got \(authSecret.count)")
        }
        let ephemeral: (privateKey: [UInt8], publicKey: [UInt8])
        if let sender { ephemeral = sender } else { ephemeral = try LibCrypto.generateP256() }
        let recordSalt: [UInt8]
        if let salt { recordSalt = salt } else { recordSalt = try LibCrypto.randomBytes(ContentCodingHeader.saltLength) }
        let header = try ContentCodingHeader(salt: recordSalt, recordSize: recordSize, keyID: ephemeral.publicKey)
        let record = plaintext.count + 1 + ContentCoding.tagLength
        guard record <= Int(recordSize), header.encodedLength + record <= maximumMessageLength else {
            throw PushCryptoError(.tooLarge, "web push: \(plaintext.count) bytes of plaintext do not fit one record "
                                  + "of \(recordSize) bytes within the 4096-byte message limit")
        }
        let secret = try LibCrypto.p256SharedSecret(privateKey: ephemeral.privateKey, publicKey: ephemeral.publicKey,
                                                    peerPublicKey: receiverPublicKey)
        let ikm = try LibCrypto.hkdfExpand(
            pseudorandomKey: LibCrypto.hkdfExtract(salt: authSecret, inputKeyingMaterial: secret),
            info: keyInfo(receiverPublicKey: receiverPublicKey, senderPublicKey: ephemeral.publicKey), length: 32)
        return try ContentCoding.encrypt(plaintext, header: header, inputKeyingMaterial: ikm)
    }

    /// `"WebPush: info" ‖ 0x00 ‖ ua_public ‖ as_public` (RFC 8291 §3.4).
    static func keyInfo(receiverPublicKey: [UInt8], senderPublicKey: [UInt8]) -> [UInt8] {
        Array("WebPush: info".utf8) + [0] + receiverPublicKey + senderPublicKey
    }

    /// The IKM the receiver derives for a sender's public key (RFC 8291 §3.3, §3.4).
    static func inputKeyingMaterial(keys: WebPushKeys, senderPublicKey: [UInt8]) throws(PushCryptoError) -> [UInt8] {
        let secret: [UInt8]
        do {
            secret = try LibCrypto.p256SharedSecret(privateKey: keys.privateKey, publicKey: keys.publicKey,
                                                    peerPublicKey: senderPublicKey)
        } catch where error.kind == .invalidKey {
            throw PushCryptoError(.invalidKey, "web push: the sender public key in the header is not a P-256 point")
        }
        let prk = try LibCrypto.hkdfExtract(salt: keys.authSecret, inputKeyingMaterial: secret)
        return try LibCrypto.hkdfExpand(pseudorandomKey: prk,
                                        info: keyInfo(receiverPublicKey: keys.publicKey, senderPublicKey: senderPublicKey),
                                        length: 32)
    }
}
