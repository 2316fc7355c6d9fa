import ScheddCrypto

/// The `aes128gcm` content coding (RFC 8188): a header, then records encrypted with AES-128-GCM
/// under a key and nonce derived from input keying material and the header's salt.
///
/// Key schedule (§2.2, §2.3):
/// ```
/// PRK   = HKDF-Extract(salt, IKM)
/// CEK   = HKDF-Expand(PRK, "Content-Encoding: aes128gcm" ‖ 0x00, 16)
/// NONCE = HKDF-Expand(PRK, "Content-Encoding: nonce" ‖ 0x00, 12)  XOR  record sequence number
/// ```
/// Each record's plaintext is `data ‖ delimiter ‖ 0x00*`: the delimiter is 0x02 in the last record
/// and 0x01 in every other one (§2). Decryption checks all of it; cost is linear in the body.
public enum ContentCoding {
    /// Bytes of an AES-GCM tag at the end of each record.
    public static let tagLength = LibCrypto.tagLength

    /// Decrypts a whole `aes128gcm` body with `ikm` (the key id in the header is the caller's
    /// business: RFC 8188 leaves its meaning to the application).
    public static func decrypt(_ body: [UInt8], inputKeyingMaterial ikm: [UInt8]) throws(PushCryptoError) -> [UInt8] {
        let header = try ContentCodingHeader.parse(body)
        return try decryptRecords(body[header.encodedLength...], header: header, inputKeyingMaterial: ikm)
    }

    /// Encrypts `plaintext` into an `aes128gcm` body: records of `header.recordSize` bytes, each
    /// holding up to `recordSize − 17` bytes of data; `padding` zero bytes go into the last record
    /// (they must fit there).
    public static func encrypt(_ plaintext: [UInt8], header: ContentCodingHeader, inputKeyingMaterial ikm: [UInt8],
                               padding: Int = 0) throws(PushCryptoError) -> [UInt8] {
        let (key, nonce) = try keys(salt: header.salt, inputKeyingMaterial: ikm)
        let perRecord = Int(header.recordSize) - tagLength - 1
        var chunks: [ArraySlice<UInt8>] = stride(from: 0, to: plaintext.count, by: perRecord).map {
            plaintext[$0..<min($0 + perRecord, plaintext.count)]
        }
        if chunks.isEmpty { chunks = [[]] }
        guard padding >= 0, chunks[chunks.count - 1].count + padding <= perRecord else {
            throw PushCryptoError(.tooLarge, "aes128gcm: \(padding) bytes of padding do not fit in the last record "
                                  + "(record size \(header.recordSize))")
        }
        var out = header.encoded()
        for (index, chunk) in chunks.enumerated() {
            let last = index == chunks.count - 1
            var record = Array(chunk)
            record.append(last ? 0x02 : 0x01)
            if last { record += [UInt8](repeating: 0, count: padding) }
            out += try LibCrypto.aes128gcmSeal(key: key, nonce: recordNonce(nonce, index), plaintext: record)
        }
        return out
    }

    /// Decrypts the records that follow `header`: every record but the last is exactly `recordSize`
    /// bytes; each must authenticate and end with the right delimiter.
    static func decryptRecords(_ records: ArraySlice<UInt8>, header: ContentCodingHeader,
                               inputKeyingMaterial ikm: [UInt8]) throws(PushCryptoError) -> [UInt8] {
        guard !records.isEmpty else {
            throw PushCryptoError(.truncated, "aes128gcm: no record after the \(header.encodedLength)-byte header")
        }
        let size = Int(header.recordSize)
        // Structure before crypto: the last record (the only one that may be short) must hold a tag
        // and a delimiter; the others are exactly `size` bytes by construction of the split below.
        let lastLength = records.count % size == 0 ? size : records.count % size
        guard lastLength > tagLength else {
            throw PushCryptoError(.truncated, "aes128gcm: record \((records.count - 1) / size) has \(lastLength) bytes, "
                                  + "fewer than its 16-byte tag and a delimiter")
        }
        let (key, nonce) = try keys(salt: header.salt, inputKeyingMaterial: ikm)
        var plaintext: [UInt8] = []
        var start = records.startIndex
        var index = 0
        while start < records.endIndex {
            let end = records.endIndex - start > size ? start + size : records.endIndex
            let last = end == records.endIndex
            let sealed = records[start..<end]
            let opened = try LibCrypto.aes128gcmOpen(key: key, nonce: recordNonce(nonce, index), sealed: sealed)
            plaintext += try unpadded(opened, index: index, last: last)
            start = end
            index += 1
        }
        return plaintext
    }

    /// The data of one decrypted record: trailing zeros are padding, the byte before them the
    /// delimiter (0x02 in the last record, 0x01 elsewhere).
    static func unpadded(_ record: [UInt8], index: Int, last: Bool) throws(PushCryptoError) -> ArraySlice<UInt8> {
        guard let delimiterAt = record.lastIndex(where: { $0 != 0 }) else {
            throw PushCryptoError(.invalidPadding, "aes128gcm: record \(index) is all padding, with no delimiter")
        }
        let expected: UInt8 = last ? 0x02 : 0x01
        let found = record[delimiterAt]
        guard found == expected else {
            let place = last ? "the last record" : "a record before the last"
            let hint = found == 0x01 && last ? " (the body was cut short: more records were announced)" : ""
            throw PushCryptoError(.invalidPadding, "aes128gcm: record \(index) ends with delimiter "
                                  + "\(hexByte(found)); \(place) needs \(hexByte(expected))\(hint)")
        }
        return record[..<delimiterAt]
    }

    /// CEK and base nonce for `salt` and `ikm`.
    static func keys(salt: [UInt8], inputKeyingMaterial ikm: [UInt8]) throws(PushCryptoError) -> (key: [UInt8], nonce: [UInt8]) {
        let prk = try LibCrypto.hkdfExtract(salt: salt, inputKeyingMaterial: ikm)
        let key = try LibCrypto.hkdfExpand(pseudorandomKey: prk, info: Array("Content-Encoding: aes128gcm".utf8) + [0],
                                           length: 16)
        let nonce = try LibCrypto.hkdfExpand(pseudorandomKey: prk, info: Array("Content-Encoding: nonce".utf8) + [0],
                                             length: 12)
        return (key, nonce)
    }

    /// The nonce of record `sequence`: the base nonce XOR the sequence number as a 96-bit
    /// big-endian integer (§2.3).
    static func recordNonce(_ base: [UInt8], _ sequence: Int) -> [UInt8] {
        var nonce = base
        var value = UInt64(sequence)
        for position in stride(from: nonce.count - 1, through: nonce.count - 8, by: -1) {
            nonce[position] ^= UInt8(truncatingIfNeeded: value)
            value >>= 8
        }
        return nonce
    }

    private static func hexByte(_ byte: UInt8) -> String { "0x" + Hex.lowercase(CollectionOfOne(byte)) }
}
