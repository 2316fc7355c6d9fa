import ScheddCrypto

/// The keys a Web Push receiver (here: one app's registration) holds (RFC 8291 §2, §3).
///
/// `publicKey` (the "p256dh" key) and `authSecret` (the "auth" secret) go to the application
/// server; `privateKey` never leaves the device. Invariant, checked in `init`: the private key is
/// the 32-byte scalar of the 65-byte uncompressed `publicKey`, and `authSecret` is 16 bytes.
public struct WebPushKeys: Sendable, Equatable {
    /// Bytes of the auth secret (RFC 8291 §3.2).
    public static let authSecretLength = 16

    public let privateKey: [UInt8]
    public let publicKey: [UInt8]
    public let authSecret: [UInt8]

    /// Keys from stored bytes; throws `.invalidKey` when they are not a P-256 pair and a 16-byte secret.
    public init(privateKey: [UInt8], publicKey: [UInt8], authSecret: [UInt8]) throws(PushCryptoError) {
        guard authSecret.count == Self.authSecretLength else {
            throw PushCryptoError(.invalidKey, "auth secret: must be 16 bytes, got \(authSecret.count)")
        }
        try LibCrypto.validateP256(privateKey: privateKey, publicKey: publicKey, role: "receiver key pair")
        self.privateKey = privateKey
        self.publicKey = publicKey
        self.authSecret = authSecret
    }

    /// A fresh key pair and auth secret from OpenSSL's generator.
    public static func generate() throws(PushCryptoError) -> WebPushKeys {
        let pair = try LibCrypto.generateP256()
        return try WebPushKeys(privateKey: pair.privateKey, publicKey: pair.publicKey,
                               authSecret: LibCrypto.randomBytes(authSecretLength))
    }
}
