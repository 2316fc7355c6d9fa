// The key → slab index table of a TimerWheel: open addressing, linear probing, Fibonacci hashing.
//
// A bucket is one UInt64: the top 32 bits of the key's hash (the fingerprint) above the Int32 slab
// index. Probing compares fingerprints in the table's own cache lines and reads the slab only on a
// fingerprint match (almost always the right entry); the home bucket is recomputed from the
// fingerprint, so growing and deleting never touch the slab. Load is kept ≤ 3/4. Deletion shifts
// later members of the probe run back (no tombstones), so lookups never slow down after cancels.

extension TimerWheel {
    static let emptyBucket = UInt64.max

    /// key × 2^64/φ: its top bits are well mixed even for sequential rowids.
    @inline(__always) static func hash(_ key: Int64) -> UInt64 {
        UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15
    }

    /// Home bucket of a stored bucket value, from its fingerprint. `tableShift` ≥ 32 because the
    /// table never exceeds 2^32 buckets (at most Int32.max timers at load ≤ 3/4).
    @inline(__always) func home(ofBucket b: UInt64) -> Int {
        Int(truncatingIfNeeded: (b >> 32) >> UInt64(tableShift - 32))
    }

    /// The bucket position holding `key`, if present.
    @inline(__always) func tablePosition(of key: Int64) -> Int? {
        let h = Self.hash(key)
        let fingerprint = h >> 32
        let mask = table.count - 1
        var p = Int(truncatingIfNeeded: h >> UInt64(tableShift))
        while true {
            let b = table[p]
            if b == Self.emptyBucket { return nil }
            if b >> 32 == fingerprint && slab[Int(truncatingIfNeeded: UInt32(truncatingIfNeeded: b))].key == key {
                return p
            }
            p = (p + 1) & mask
        }
    }

    /// The slab index in bucket `p`.
    @inline(__always) func slabIndex(atBucket p: Int) -> Int32 {
        Int32(truncatingIfNeeded: UInt32(truncatingIfNeeded: table[p]))
    }

    /// The slab index of `key`, if present.
    @inline(__always) func tableFind(_ key: Int64) -> Int32? {
        guard let p = tablePosition(of: key) else { return nil }
        return slabIndex(atBucket: p)
    }

    /// Adds slab entry `i` (whose key is not in the table), growing the table first if needed.
    mutating func tableInsert(_ i: Int32) {
        if (live + 1) * 4 > table.count * 3 { growTable() }
        let h = Self.hash(slab[Int(i)].key)
        let mask = table.count - 1
        var p = Int(truncatingIfNeeded: h >> UInt64(tableShift))
        while table[p] != Self.emptyBucket { p = (p + 1) & mask }
        table[p] = (h >> 32) << 32 | UInt64(UInt32(bitPattern: i))
    }

    /// Empties bucket `position`, moving later members of its probe run back into the hole.
    mutating func tableRemove(at position: Int) {
        let mask = table.count - 1
        var hole = position
        var j = position
        while true {
            j = (j + 1) & mask
            let b = table[j]
            if b == Self.emptyBucket { break }
            let h = home(ofBucket: b)
            // `b` may move into the hole unless its home lies cyclically in (hole, j].
            let homeAfterHole = hole <= j ? (h > hole && h <= j) : (h > hole || h <= j)
            if !homeAfterHole {
                table[hole] = b
                hole = j
            }
        }
        table[hole] = Self.emptyBucket
    }

    /// Doubles the table and re-inserts every bucket (from fingerprints alone).
    mutating func growTable() {
        let old = table
        table = Array(repeating: Self.emptyBucket, count: old.count * 2)
        tableShift -= 1
        let mask = table.count - 1
        for b in old where b != Self.emptyBucket {
            var p = home(ofBucket: b)
            while table[p] != Self.emptyBucket { p = (p + 1) & mask }
            table[p] = b
        }
    }
}
