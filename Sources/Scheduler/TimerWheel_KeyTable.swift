// The key table of a TimerWheel: key → (due, handle), open addressing, linear probing, Fibonacci
// hashing of groups of four keys, with *lazy* removal of expired keys.
//
// A bucket is 16 bytes: the due, the key's fingerprint (which also gives its home bucket, so growing
// and deleting never look anywhere else) and the handle. For a key in 0..<2^32 the fingerprint is a
// bijection of the key, so a matching fingerprint is the key: finding a key reads its probe run and
// nothing else (one cache miss at 1M timers). A wider key (negative, or 2^32 and up) sets its
// bucket's `wide` flag and is confirmed in `wideKeys`.
// Expiry does not touch the table (at 1M timers that would be one cache miss per expired timer,
// in random key order): a bucket whose due is ≤ `now` and that is not flagged `overdue` belongs
// to a timer that has already expired (invariant 7) and counts as absent ("stale"). Stale buckets
// are reused by inserts that probe over them and dropped when the table is rebuilt. Buckets of
// timers inserted already due (due ≤ now) carry the `overdue` flag and are removed explicitly
// when they expire. Cancel removes its bucket by shifting later members of the probe run back
// (no tombstones). Occupancy (live + stale) is kept ≤ 3/4.

extension TimerWheel {
    /// One key-table bucket. 16 bytes.
    struct Bucket {
        var due: Int64
        /// `fingerprint(key)`: it also names the home bucket.
        var fingerprint: UInt32
        /// The handle in the low 30 bits, then `wideKeyFlag`, then `overdueFlag`; `emptyBucket` when
        /// empty. (Handles stay below `handleLimit`, 2^30 − 1, so a used tag is never `emptyBucket`.)
        var tag: UInt32

        static let empty = Bucket(due: 0, fingerprint: 0, tag: TimerWheel.emptyBucket)
        var isEmpty: Bool { tag == TimerWheel.emptyBucket }
        var handle: UInt32 { tag & TimerWheel.handleMask }
        var isOverdue: Bool { tag & TimerWheel.overdueFlag != 0 && !isEmpty }
        var isWide: Bool { tag & TimerWheel.wideKeyFlag != 0 }
    }

    static let emptyBucket = UInt32.max
    static let overdueFlag: UInt32 = 1 << 31
    static let wideKeyFlag: UInt32 = 1 << 30
    static let handleMask: UInt32 = wideKeyFlag - 1

    /// Whether `key` is outside 0..<2^32, where its fingerprint does not name it alone.
    @inline(__always) static func isWide(_ key: Int64) -> Bool { UInt64(bitPattern: key) >> 32 != 0 }

    /// `wideKeyFlag` for a wide key, else 0.
    @inline(__always) static func wideFlag(_ key: Int64) -> UInt32 { isWide(key) ? wideKeyFlag : 0 }

    /// The fingerprint of `key`: its group of four, `key >> 2`, hashed to 30 bits by Fibonacci hashing
    /// modulo 2^30 (`× 2^30/φ`, rounded to the odd 0x278DDE6D), then the key's low 2 bits. Four
    /// consecutive keys (rowids) thus get four adjacent buckets — one 64-byte cache line — while
    /// groups are spread well: inserting rowids in order, as a restore or a bulk push does, touches a
    /// new line only every fourth key. Probe runs stay short because groups, not keys, collide (a
    /// collision run grows by at most four per group). For a key in 0..<2^32 the group has 30 bits,
    /// and multiplying by an odd number modulo 2^30 is a bijection, so the fingerprint names the key
    /// exactly; a wide key's group is folded to 30 bits first, and its fingerprint may be shared.
    @inline(__always) static func fingerprint(_ key: Int64) -> UInt32 {
        let group = UInt64(bitPattern: key) >> 2
        let folded = UInt32(truncatingIfNeeded: group ^ group >> 30 ^ group >> 60)
        let hashed = folded &* 0x278D_DE6D
        return hashed << 2 | UInt32(truncatingIfNeeded: key & 3)
    }

    /// Home bucket of a fingerprint: the group's top bits (as many as the table has bits, less two),
    /// then the key's low 2 bits. `tableShift` is 64 − log2(buckets), 32…60 (at least 16 buckets, never
    /// more than 2^32).
    @inline(__always) func home(of fingerprint: UInt32) -> Int {
        Int(truncatingIfNeeded: UInt64(fingerprint >> 2) >> UInt64(tableShift - 32)) << 2 | Int(fingerprint & 3)
    }

    /// Whether bucket `b`, whose fingerprint is `fingerprint(key)`, is `key`'s: always for a key in
    /// 0..<2^32 in a bucket of one (the fingerprint is a bijection there), else by `wideKeys`.
    @inline(__always) func isBucket(_ b: Bucket, of key: Int64) -> Bool {
        if !b.isWide { return !Self.isWide(key) }
        return Self.isWide(key) && wideKeys[b.handle] == key
    }

    /// Whether a non-empty bucket belongs to a pending timer (invariant 7).
    @inline(__always) func isLive(_ b: Bucket) -> Bool {
        b.isOverdue || b.due > now.microseconds
    }

    /// The bucket position holding pending `key`, if any.
    @inline(__always) func tablePosition(of key: Int64) -> Int? {
        let fp = Self.fingerprint(key)
        let mask = table.count - 1
        var p = home(of: fp)
        while true {
            let b = table[p]
            if b.isEmpty { return nil }
            if b.fingerprint == fp && isLive(b) && isBucket(b, of: key) { return p }
            p = (p + 1) & mask
        }
    }

    /// The bucket position of the overdue-flagged timer `handle` with key `key`, whose slot entry
    /// has been taken out (so the key cannot be confirmed there; the handle identifies it).
    @inline(__always) func tablePosition(ofOverdue handle: UInt32, key: Int64) -> Int? {
        let fp = Self.fingerprint(key)
        let mask = table.count - 1
        var p = home(of: fp)
        while true {
            let b = table[p]
            if b.isEmpty { return nil }
            if b.fingerprint == fp && b.isOverdue && b.handle == handle { return p }
            p = (p + 1) & mask
        }
    }

    /// Where to store `key`: its live bucket, else the first stale bucket of its probe run, else
    /// the empty bucket ending it. Grows or purges the table first if needed.
    mutating func tableSlot(for key: Int64) -> (position: Int, live: Bool) {
        if (tableUsed + 1) * 4 > table.count * 3 { rebuildTable() }
        let fp = Self.fingerprint(key)
        let mask = table.count - 1
        var p = home(of: fp)
        var reusable: Int?
        while true {
            let b = table[p]
            if b.isEmpty { break }
            if !isLive(b) {
                if reusable == nil { reusable = p }
            } else if b.fingerprint == fp && isBucket(b, of: key) {
                return (p, true)
            }
            p = (p + 1) & mask
        }
        if let r = reusable { return (r, false) }
        tableUsed += 1
        return (p, false)
    }

    /// Empties bucket `position`, moving later members of its probe run back into the hole.
    mutating func tableRemove(at position: Int) {
        let mask = table.count - 1
        var hole = position
        var j = position
        while true {
            j = (j + 1) & mask
            let b = table[j]
            if b.isEmpty { break }
            let h = home(of: b.fingerprint)
            // `b` may move into the hole unless its home lies cyclically in (hole, j].
            let homeAfterHole = hole <= j ? (h > hole && h <= j) : (h > hole || h <= j)
            if !homeAfterHole {
                table[hole] = b
                hole = j
            }
        }
        table[hole] = .empty
        tableUsed -= 1
    }

    /// Drops stale buckets; doubles the table when more than half of it is live, or makes it `buckets` long
    /// (a power of two, at least as many as now). O(buckets).
    mutating func rebuildTable(buckets: Int? = nil) {
        let old = table
        let size = buckets ?? (live * 2 > old.count ? old.count * 2 : old.count)
        precondition(size >= old.count && size.nonzeroBitCount == 1, "the key table grows by powers of two")
        table = Array(repeating: .empty, count: size)
        tableShift = 64 - size.trailingZeroBitCount
        tableUsed = 0
        let mask = table.count - 1
        for b in old where !b.isEmpty && isLive(b) {
            var p = home(of: b.fingerprint)
            while !table[p].isEmpty { p = (p + 1) & mask }
            table[p] = b
            tableUsed += 1
        }
    }
}

/// The wheel's home-bucket rule for a key in a table of `mask + 1` buckets (a power of two ≥ 16), for
/// tables that want the same locality (the benchmark's heap baseline uses it, so both pay alike).
public enum TimerWheelHome {
    @inline(__always) public static func home(of key: Int64, mask: Int) -> Int {
        let fp = TimerWheel.fingerprint(key)
        let shift = 64 - (mask + 1).trailingZeroBitCount
        return Int(truncatingIfNeeded: UInt64(fp >> 2) >> UInt64(shift - 32)) << 2 | Int(fp & 3)
    }
}
