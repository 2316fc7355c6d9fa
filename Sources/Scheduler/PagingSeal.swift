import SchedCalendar
import ScheddCrypto

/// Makes paging positions opaque and per app (CONTRACT §8 v3 "Fair service": cursors, sequence numbers
/// and counts in replies reveal nothing about other apps' activity; docs/apps.md "Paging positions").
///
/// A `ListPage` cursor names a store key and a `HistoryPage` position a history sequence number; both
/// are global (every app's rows share them), so handed out as they are, a spy that pages its own rows
/// twice learns from the gap how many rows other apps added meanwhile. Sealed, they are a keyed
/// pseudo-random permutation of the value under a key of the daemon and the app: another app's or an
/// earlier run's cursor opens to nothing (refused), and two of the spy's own cursors say nothing about
/// their distance.
///
/// - List cursor: the 16 bytes (next due µs, key) big-endian, permuted by a 4-round Feistel network
///   (Luby–Rackoff: a pseudo-random permutation from a pseudo-random function, here SHA-256 of the
///   app's key, the round and the half), then a 4-byte tag (SHA-256 of the app's key and the sealed
///   bytes): `v2:` + 40 hex digits. A cursor that is not one of this app's for this run is refused.
/// - History position (a `t` on the wire): the sequence number (below 2^48) in the low 48 bits of a
///   64-bit block whose high 16 bits are a tag of the sequence number, permuted by a 4-round Feistel
///   network on two 32-bit halves. One that does not open to a matching tag (any number another app or
///   an earlier run handed out, with probability 1 − 2⁻¹⁶) is refused. 0 stays "the newest" (as
///   `before`) and "no older page" (as `next`); a sealed position is 0 with probability 2⁻⁶⁴.
///
/// The daemon's key is 32 random bytes drawn at start (not stored): positions are good for one daemon
/// run, which is what a pager needs. Every app's key is SHA-256(daemon key ‖ app) ("*" for the
/// every-app listings). O(1): a few SHA-256 of short inputs per page.
public struct PagingSeal: Sendable {
    private let secret: [UInt8]

    /// A seal with `secret` (tests); `PagingSeal()` draws 32 random bytes.
    public init(secret: [UInt8]? = nil) {
        if let secret { self.secret = secret; return }
        var generator = SystemRandomNumberGenerator()
        self.secret = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// `v2:…` for `cursor` in the pending list of `app` (nil: every app's).
    public func seal(_ cursor: PendingCursor, app: String?) -> String {
        let key = appKey(app)
        let sealed = Self.permute(Self.bytes(UInt64(bitPattern: cursor.next.microseconds)) + Self.bytes(UInt64(bitPattern: cursor.key)),
                                  key: key, inverse: false)
        return "v2:" + Hex.lowercase(sealed + Array(Self.tag(sealed, key: key)))
    }

    /// The cursor sealed in `text` for `app`; nil when it is not one of `app`'s from this daemon run.
    public func open(list text: String, app: String?) -> PendingCursor? {
        guard text.hasPrefix("v2:"), let raw = Self.unhex(text.utf8.dropFirst(3)), raw.count == 20 else { return nil }
        let key = appKey(app)
        let sealed = Array(raw.prefix(16))
        guard Array(Self.tag(sealed, key: key)) == Array(raw.suffix(4)) else { return nil }
        let plain = Self.permute(sealed, key: key, inverse: true)
        return PendingCursor(next: Instant(microseconds: Int64(bitPattern: Self.integer(plain[0..<8]))),
                             key: Int64(bitPattern: Self.integer(plain[8..<16])))
    }

    /// The position that stands for history sequence number `seq` (≥ 1, < 2^48) of `app` (nil: every app's).
    public func seal(history seq: Int64, app: String?) -> UInt64 {
        let key = appKey(app)
        let value = UInt64(seq) & Self.sequenceMask
        return Self.integer(Self.permute(Self.bytes(Self.historyTag(value, key: key) << 48 | value), key: key, inverse: false))
    }

    /// The sequence number behind a position `seal(history:app:)` gave; nil when it is not one of `app`'s.
    public func open(history position: UInt64, app: String?) -> Int64? {
        let key = appKey(app)
        let plain = Self.integer(Self.permute(Self.bytes(position), key: key, inverse: true))
        let value = plain & Self.sequenceMask
        guard plain >> 48 == Self.historyTag(value, key: key) else { return nil }
        return Int64(value)
    }

    static let sequenceMask: UInt64 = (1 << 48) - 1

    private func appKey(_ app: String?) -> [UInt8] { SHA256.digest(secret + Array((app ?? "*").utf8)) }

    private static func tag(_ sealed: [UInt8], key: [UInt8]) -> ArraySlice<UInt8> {
        SHA256.digest(key + [0x54] + sealed).prefix(4)
    }

    private static func historyTag(_ value: UInt64, key: [UInt8]) -> UInt64 {
        let digest = SHA256.digest(key + [0x48] + bytes(value))
        return UInt64(digest[0]) << 8 | UInt64(digest[1])
    }

    /// A balanced Feistel network of 4 rounds over `block` (an even number of bytes); `inverse` undoes it.
    static func permute(_ block: [UInt8], key: [UInt8], inverse: Bool) -> [UInt8] {
        let half = block.count / 2
        var left = Array(block[..<half]), right = Array(block[half...])
        let rounds: [UInt8] = inverse ? [3, 2, 1, 0] : [0, 1, 2, 3]
        for round in rounds {
            if inverse {
                // Undo (L, R) → (R, L ⊕ F(R)): from (L', R') = (R, L ⊕ F(R)), R = L', L = R' ⊕ F(L').
                let f = SHA256.digest(key + [round] + left).prefix(half)
                let previousLeft = zip(right, f).map { $0 ^ $1 }
                right = left
                left = previousLeft
            } else {
                let f = SHA256.digest(key + [round] + right).prefix(half)
                let next = zip(left, f).map { $0 ^ $1 }
                left = right
                right = next
            }
        }
        return left + right
    }

    static func bytes(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }

    static func integer(_ bytes: some Collection<UInt8>) -> UInt64 { bytes.reduce(0) { $0 << 8 | UInt64($1) } }

    static func unhex(_ text: Substring.UTF8View) -> [UInt8]? {
        guard text.count % 2 == 0, text.count <= 64 else { return nil }
        var out: [UInt8] = []
        var high: UInt8?
        for c in text {
            let v: UInt8
            switch c {
            case 0x30...0x39: v = c - 0x30
            case 0x61...0x66: v = c - 0x61 + 10
            default: return nil
            }
            if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
        }
        return out
    }
}
