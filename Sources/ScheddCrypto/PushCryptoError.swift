/// Why a push body could not be decrypted (or encrypted), with a message that names the part of the
/// body and the rule it broke.
///
/// One error type for the whole crypto layer (RFC 8188 content coding, RFC 8291 Web Push, and the
/// libcrypto shim underneath). `kind` is what callers switch on; `message` is what the log says. No
/// message ever contains plaintext or key material.
public struct PushCryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The rule that was broken.
    public enum Kind: String, Sendable, Equatable {
        /// The body ends before the header or a record it announces is complete.
        case truncated
        /// The header is complete but its values break a rule (record size, key id).
        case invalidHeader
        /// A key has the wrong length or is not a point on P-256.
        case invalidKey
        /// AES-GCM refused the record: wrong key, wrong auth secret, or a body that was changed.
        case authenticationFailed
        /// A decrypted record has no padding delimiter, or the wrong one for its place.
        case invalidPadding
        /// The body or plaintext is over the size the protocol allows.
        case tooLarge
        /// libcrypto itself failed (out of memory, no entropy); its own error text follows.
        case library
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
