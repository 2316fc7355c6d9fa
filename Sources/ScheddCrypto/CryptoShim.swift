import CCrypto

/// Every libcrypto call schedd makes, and nothing else: ECDH on P-256 (key generation, raw
/// uncompressed public key import and export), HKDF-SHA256, AES-128-GCM, random bytes and SHA-256
/// (`SHA256`, below).
///
/// Only the OpenSSL 3 EVP API (the shim header hides the deprecated low-level calls). Keys cross
/// this file as raw bytes: a P-256 private key is its 32-byte big-endian scalar, a public key the
/// 65-byte uncompressed SEC 1 point `04 ‖ X ‖ Y`. Every function checks each C result and turns a
/// failure into a `PushCryptoError`; none can trap on any input. Cost: constant for the key
/// operations, linear in the input for HKDF info and AES-GCM.
public enum LibCrypto {
    /// Length of a P-256 private scalar.
    public static let privateKeyLength = 32
    /// Length of an uncompressed P-256 point (`04 ‖ X ‖ Y`).
    public static let publicKeyLength = 65
    /// Length of an AES-GCM authentication tag as aes128gcm uses it.
    public static let tagLength = 16

    // MARK: Random

    /// `count` bytes from OpenSSL's CSPRNG (`RAND_bytes`).
    public static func randomBytes(_ count: Int) throws(PushCryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        guard count == 0 || RAND_bytes(&out, Int32(count)) == 1 else { throw failure("RAND_bytes") }
        return out
    }

    // MARK: P-256

    /// A fresh P-256 key pair (`EVP_PKEY_generate` on group P-256).
    public static func generateP256() throws(PushCryptoError) -> (privateKey: [UInt8], publicKey: [UInt8]) {
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw failure("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_keygen_init(ctx) == 1 else { throw failure("EVP_PKEY_keygen_init") }
        guard EVP_PKEY_CTX_set_group_name(ctx, "P-256") == 1 else { throw failure("EVP_PKEY_CTX_set_group_name") }
        var generated: OpaquePointer?
        guard EVP_PKEY_generate(ctx, &generated) == 1, let key = generated else { throw failure("EVP_PKEY_generate") }
        defer { EVP_PKEY_free(key) }
        return (try privateScalar(of: key), try encodedPublicKey(of: key))
    }

    /// The ECDH shared secret (the 32-byte X coordinate) of our key pair and a peer's public key.
    ///
    /// The key pair is checked to be consistent (`EVP_PKEY_pairwise_check`) and the peer's point to
    /// lie on the curve before any derivation.
    public static func p256SharedSecret(privateKey: [UInt8], publicKey: [UInt8],
                                 peerPublicKey: [UInt8]) throws(PushCryptoError) -> [UInt8] {
        let own = try importP256(privateKey: privateKey, publicKey: publicKey, role: "own key pair")
        defer { EVP_PKEY_free(own) }
        let peer = try importP256(privateKey: nil, publicKey: peerPublicKey, role: "peer public key")
        defer { EVP_PKEY_free(peer) }
        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, own, nil) else { throw failure("EVP_PKEY_CTX_new_from_pkey") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_derive_init(ctx) == 1 else { throw failure("EVP_PKEY_derive_init") }
        guard EVP_PKEY_derive_set_peer(ctx, peer) == 1 else {
            ERR_clear_error()
            throw PushCryptoError(.invalidKey, "peer public key: not usable with our P-256 key")
        }
        var length = 0
        guard EVP_PKEY_derive(ctx, nil, &length) == 1, length == privateKeyLength else { throw failure("EVP_PKEY_derive") }
        var secret = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_derive(ctx, &secret, &length) == 1, length == privateKeyLength else { throw failure("EVP_PKEY_derive") }
        return secret
    }

    /// Checks that `publicKey` is an uncompressed point on P-256 (and, with `privateKey`, that the two
    /// belong together). Throws `.invalidKey` naming `role` otherwise.
    public static func validateP256(privateKey: [UInt8]?, publicKey: [UInt8], role: String) throws(PushCryptoError) {
        let key = try importP256(privateKey: privateKey, publicKey: publicKey, role: role)
        EVP_PKEY_free(key)
    }

    /// Imports raw key bytes as an `EVP_PKEY` (caller frees it), checking lengths, the point, and
    /// for a pair that the scalar belongs to the point.
    private static func importP256(privateKey: [UInt8]?, publicKey: [UInt8],
                                   role: String) throws(PushCryptoError) -> OpaquePointer {
        guard publicKey.count == publicKeyLength, publicKey.first == 0x04 else {
            throw PushCryptoError(.invalidKey, "\(role): a P-256 public key is 65 bytes starting with 0x04 "
                                  + "(uncompressed point), got \(publicKey.count) bytes")
        }
        if let privateKey, privateKey.count != privateKeyLength {
            throw PushCryptoError(.invalidKey, "\(role): a P-256 private key is 32 bytes, got \(privateKey.count)")
        }
        guard let builder = OSSL_PARAM_BLD_new() else { throw failure("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        var scalar: OpaquePointer?
        defer { if let scalar { BN_clear_free(scalar) } }
        if let privateKey {
            scalar = BN_bin2bn(privateKey, Int32(privateKey.count), nil)
            if scalar == nil { throw failure("BN_bin2bn") }
        }
        // The builder keeps every pointer until to_param copies: the key bytes stay pinned (and the
        // names are C literals) until then.
        let built: UnsafeMutablePointer<OSSL_PARAM>? = publicKey.withUnsafeBufferPointer { point in
            guard OSSL_PARAM_BLD_push_utf8_string(builder, ccrypto_param_group_name(), ccrypto_group_p256(), 0) == 1,
                  OSSL_PARAM_BLD_push_octet_string(builder, ccrypto_param_public_key(), point.baseAddress, point.count) == 1
            else { return nil }
            if let scalar, OSSL_PARAM_BLD_push_BN(builder, ccrypto_param_private_key(), scalar) != 1 { return nil }
            return OSSL_PARAM_BLD_to_param(builder)
        }
        guard let params = built else { throw failure("OSSL_PARAM_BLD") }
        defer { OSSL_PARAM_free(params) }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { throw failure("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_fromdata_init(ctx) == 1 else { throw failure("EVP_PKEY_fromdata_init") }
        let selection = privateKey == nil ? ccrypto_selection_public_key() : ccrypto_selection_keypair()
        var imported: OpaquePointer?
        guard EVP_PKEY_fromdata(ctx, &imported, selection, params) == 1, let key = imported else {
            ERR_clear_error()
            throw PushCryptoError(.invalidKey, "\(role): not a point on P-256")
        }
        guard let check = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
            EVP_PKEY_free(key)
            throw failure("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(check) }
        let valid = privateKey == nil ? EVP_PKEY_public_check(check) : EVP_PKEY_pairwise_check(check)
        guard valid == 1 else {
            ERR_clear_error()
            EVP_PKEY_free(key)
            throw PushCryptoError(.invalidKey, privateKey == nil ? "\(role): not a point on P-256"
                                  : "\(role): the private key does not belong to the public key")
        }
        return key
    }

    private static func privateScalar(of key: OpaquePointer) throws(PushCryptoError) -> [UInt8] {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &number) == 1, let number else {
            throw failure("EVP_PKEY_get_bn_param")
        }
        defer { BN_clear_free(number) }
        var out = [UInt8](repeating: 0, count: privateKeyLength)
        guard BN_bn2binpad(number, &out, Int32(privateKeyLength)) == Int32(privateKeyLength) else {
            throw failure("BN_bn2binpad")
        }
        return out
    }

    private static func encodedPublicKey(of key: OpaquePointer) throws(PushCryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: publicKeyLength)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_PUB_KEY, &out, out.count, &length) == 1,
              length == publicKeyLength, out[0] == 0x04
        else { throw failure("EVP_PKEY_get_octet_string_param") }
        return out
    }

    // MARK: HKDF-SHA256 (RFC 5869)

    /// HKDF-Extract(salt, ikm): the 32-byte pseudorandom key.
    public static func hkdfExtract(salt: [UInt8], inputKeyingMaterial ikm: [UInt8]) throws(PushCryptoError) -> [UInt8] {
        try hkdf(mode: EVP_PKEY_HKDEF_MODE_EXTRACT_ONLY, salt: salt, key: ikm, info: [], length: 32)
    }

    /// HKDF-Expand(prk, info, length), `length` ≤ 255 × 32.
    public static func hkdfExpand(pseudorandomKey prk: [UInt8], info: [UInt8], length: Int) throws(PushCryptoError) -> [UInt8] {
        try hkdf(mode: EVP_PKEY_HKDEF_MODE_EXPAND_ONLY, salt: [], key: prk, info: info, length: length)
    }

    private static func hkdf(mode: Int32, salt: [UInt8], key: [UInt8], info: [UInt8],
                             length: Int) throws(PushCryptoError) -> [UInt8] {
        guard length > 0, length <= 255 * 32 else {
            throw PushCryptoError(.tooLarge, "HKDF-SHA256 output of \(length) bytes is outside 1…8160")
        }
        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "HKDF", nil) else { throw failure("EVP_PKEY_CTX_new_from_name(HKDF)") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_derive_init(ctx) == 1,
              EVP_PKEY_CTX_set_hkdf_md(ctx, EVP_sha256()) == 1,
              EVP_PKEY_CTX_set_hkdf_mode(ctx, mode) == 1,
              EVP_PKEY_CTX_set1_hkdf_key(ctx, key, Int32(key.count)) == 1
        else { throw failure("HKDF setup") }
        if mode != EVP_PKEY_HKDEF_MODE_EXPAND_ONLY {
            guard EVP_PKEY_CTX_set1_hkdf_salt(ctx, salt, Int32(salt.count)) == 1 else { throw failure("EVP_PKEY_CTX_set1_hkdf_salt") }
        }
        if mode != EVP_PKEY_HKDEF_MODE_EXTRACT_ONLY, !info.isEmpty {
            guard EVP_PKEY_CTX_add1_hkdf_info(ctx, info, Int32(info.count)) == 1 else { throw failure("EVP_PKEY_CTX_add1_hkdf_info") }
        }
        var out = [UInt8](repeating: 0, count: length)
        var written = length
        guard EVP_PKEY_derive(ctx, &out, &written) == 1, written == length else { throw failure("EVP_PKEY_derive(HKDF)") }
        return out
    }

    // MARK: AES-128-GCM

    /// AES-128-GCM encryption with no associated data: ciphertext ‖ 16-byte tag.
    public static func aes128gcmSeal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8]) throws(PushCryptoError) -> [UInt8] {
        try checkGCMParameters(key: key, nonce: nonce)
        guard let ctx = EVP_CIPHER_CTX_new() else { throw failure("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        guard EVP_EncryptInit_ex(ctx, EVP_aes_128_gcm(), nil, key, nonce) == 1 else { throw failure("EVP_EncryptInit_ex") }
        var out = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        var written: Int32 = 0
        var final: Int32 = 0
        guard EVP_EncryptUpdate(ctx, &out, &written, plaintext, Int32(plaintext.count)) == 1,
              out.withUnsafeMutableBufferPointer({ EVP_EncryptFinal_ex(ctx, $0.baseAddress! + Int(written), &final) }) == 1
        else { throw failure("EVP_Encrypt") }
        let body = Int(written + final)
        var tag = [UInt8](repeating: 0, count: tagLength)
        guard body == plaintext.count,
              EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), &tag) == 1
        else { throw failure("EVP_CTRL_GCM_GET_TAG") }
        out.replaceSubrange(body..<out.count, with: tag)
        return out
    }

    /// AES-128-GCM decryption of ciphertext ‖ 16-byte tag, no associated data. Throws
    /// `.authenticationFailed` when the tag does not verify (wrong key or changed bytes).
    public static func aes128gcmOpen(key: [UInt8], nonce: [UInt8], sealed: ArraySlice<UInt8>) throws(PushCryptoError) -> [UInt8] {
        try checkGCMParameters(key: key, nonce: nonce)
        guard sealed.count >= tagLength else {
            throw PushCryptoError(.truncated, "record of \(sealed.count) bytes is shorter than its 16-byte tag")
        }
        let ciphertext = Array(sealed.dropLast(tagLength))
        var tag = Array(sealed.suffix(tagLength))
        guard let ctx = EVP_CIPHER_CTX_new() else { throw failure("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        guard EVP_DecryptInit_ex(ctx, EVP_aes_128_gcm(), nil, key, nonce) == 1 else { throw failure("EVP_DecryptInit_ex") }
        // One spare byte so the final call always has an in-bounds address, even for no ciphertext.
        var out = [UInt8](repeating: 0, count: ciphertext.count + 1)
        var written: Int32 = 0
        guard EVP_DecryptUpdate(ctx, &out, &written, ciphertext, Int32(ciphertext.count)) == 1 else {
            throw failure("EVP_DecryptUpdate")
        }
        guard EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), &tag) == 1 else {
            throw failure("EVP_CTRL_GCM_SET_TAG")
        }
        var final: Int32 = 0
        let verified = out.withUnsafeMutableBufferPointer {
            EVP_DecryptFinal_ex(ctx, $0.baseAddress! + Int(written), &final)
        }
        guard verified == 1 else {
            ERR_clear_error()
            throw PushCryptoError(.authenticationFailed,
                                  "record does not authenticate (AES-GCM tag mismatch): wrong keys or a changed body")
        }
        return Array(out.prefix(Int(written + final)))
    }

    private static func checkGCMParameters(key: [UInt8], nonce: [UInt8]) throws(PushCryptoError) {
        guard key.count == 16, nonce.count == 12 else {
            throw PushCryptoError(.invalidKey, "AES-128-GCM takes a 16-byte key and a 12-byte nonce, "
                                  + "got \(key.count) and \(nonce.count)")
        }
    }

    // MARK: Errors

    /// A `.library` error naming `call` with the oldest entry of libcrypto's error queue, which is
    /// then cleared (the queue is per thread; leaving entries would blame the next call).
    private static func failure(_ call: String) -> PushCryptoError {
        let code = ERR_get_error()
        var detail = "no detail from libcrypto"
        if code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            detail = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        }
        ERR_clear_error()
        return PushCryptoError(.library, "\(call) failed: \(detail)")
    }
}

/// SHA-256 (FIPS 180-4) through libcrypto (`EVP_Digest` with `EVP_sha256`): the content digest of zone
/// rules and the engine's push digests. O(n) in the input; never fails for any input (a libcrypto
/// failure to hash — out of memory — traps, as a failed allocation does in Swift).
public enum SHA256 {
    /// SHA-256 fetched from the default provider once: `EVP_sha256()` makes every `EVP_Digest` fetch it
    /// again (~2,300 instructions of each push's one digest). An `EVP_MD` is immutable and may be shared
    /// between threads; nil only if the provider has no SHA-256, and then `EVP_sha256()` is used.
    nonisolated(unsafe) private static let fetched: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)

    /// The 32-byte digest of `bytes`.
    public static func digest(_ bytes: some Collection<UInt8>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { out, count in
            hash(bytes, into: UnsafeMutableRawBufferPointer(out))
            count = 32
        }
    }

    /// Writes the 32-byte digest of `bytes` to `out` (at least 32 bytes): no allocation beyond libcrypto's own
    /// context. Contiguous inputs (`[UInt8]`, slices, native `String.UTF8View`) are hashed in place.
    public static func hash(_ bytes: some Collection<UInt8>, into out: UnsafeMutableRawBufferPointer) {
        precondition(out.count >= 32, "SHA256.hash: the output holds fewer than 32 bytes")
        let md = fetched ?? EVP_sha256()
        let target = out.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var length: UInt32 = 0
        let ok = bytes.withContiguousStorageIfAvailable { input in
            EVP_Digest(input.baseAddress, input.count, target, &length, md, nil)
        } ?? Array(bytes).withUnsafeBytes { raw in EVP_Digest(raw.baseAddress, raw.count, target, &length, md, nil) }
        precondition(ok == 1 && length == 32, "EVP_Digest(SHA-256) failed")
    }

    /// The digest of `bytes` as lowercase hexadecimal (what `sha256sum` prints).
    public static func hex(_ bytes: some Collection<UInt8>) -> String {
        var digest: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &digest) { raw in
            hash(bytes, into: raw)
            return Hex.lowercase(UnsafeRawBufferPointer(raw))
        }
    }

    /// The digest of `text`'s UTF-8 as lowercase hexadecimal.
    public static func hex(_ text: String) -> String { hex(text.utf8) }
}
