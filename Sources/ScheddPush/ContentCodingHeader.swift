import ScheddCrypto

/// The header that starts an `aes128gcm` body (RFC 8188 §2.1).
///
/// ```
/// +-----------+--------+-----------+---------------+
/// | salt (16) | rs (4) | idlen (1) | keyid (idlen) |
/// +-----------+--------+-----------+---------------+
/// ```
/// `rs` is the big-endian record size: every record but the last is exactly `rs` bytes (ciphertext
/// and its 16-byte tag), the last at most `rs`. Parsing checks every length against the bytes
/// present before reading them, so a short or hostile body is an error, never an out-of-bounds
/// read; it costs O(idlen).
public struct ContentCodingHeader: Sendable, Equatable {
    /// Bytes of the salt.
    public static let saltLength = 16
    /// Bytes before the key id: salt, record size, key id length.
    public static let fixedLength = 21
    /// The smallest record size RFC 8188 allows: a 16-byte tag, a delimiter, and one byte more.
    public static let minimumRecordSize: UInt32 = 18

    public let salt: [UInt8]
    public let recordSize: UInt32
    public let keyID: [UInt8]

    /// A header; `salt` must be 16 bytes, `keyID` at most 255, `recordSize` at least 18.
    public init(salt: [UInt8], recordSize: UInt32, keyID: [UInt8]) throws(PushCryptoError) {
        guard salt.count == Self.saltLength else {
            throw PushCryptoError(.invalidHeader, "aes128gcm header: salt must be 16 bytes, got \(salt.count)")
        }
        guard keyID.count <= 255 else {
            throw PushCryptoError(.invalidHeader, "aes128gcm header: key id must be at most 255 bytes, got \(keyID.count)")
        }
        guard recordSize >= Self.minimumRecordSize else {
            throw PushCryptoError(.invalidHeader, "aes128gcm header: record size \(recordSize) is below the minimum of 18")
        }
        self.salt = salt
        self.recordSize = recordSize
        self.keyID = keyID
    }

    /// Bytes the header takes at the start of the body.
    public var encodedLength: Int { Self.fixedLength + keyID.count }

    /// The header as it starts a body.
    public func encoded() -> [UInt8] {
        var out = salt
        out += [UInt8(truncatingIfNeeded: recordSize >> 24), UInt8(truncatingIfNeeded: recordSize >> 16),
                UInt8(truncatingIfNeeded: recordSize >> 8), UInt8(truncatingIfNeeded: recordSize)]
        out.append(UInt8(keyID.count))
        out += keyID
        return out
    }

    /// Reads the header at the start of `body`.
    ///
    /// Errors: `.truncated` when the body ends inside the fixed part or the key id,
    /// `.invalidHeader` for a record size below 18.
    public static func parse(_ body: [UInt8]) throws(PushCryptoError) -> ContentCodingHeader {
        guard body.count >= fixedLength else {
            throw PushCryptoError(.truncated, "aes128gcm header: body of \(body.count) bytes is shorter than the "
                                  + "21-byte fixed header (salt 16, record size 4, key id length 1)")
        }
        let recordSize = body[16..<20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        let keyIDLength = Int(body[20])
        guard body.count >= fixedLength + keyIDLength else {
            throw PushCryptoError(.truncated, "aes128gcm header: key id of \(keyIDLength) bytes runs past the end "
                                  + "of a \(body.count)-byte body")
        }
        return try ContentCodingHeader(salt: Array(body[0..<saltLength]), recordSize: recordSize,
                                       keyID: Array(body[fixedLength..<(fixedLength + keyIDLength)]))
    }
}
