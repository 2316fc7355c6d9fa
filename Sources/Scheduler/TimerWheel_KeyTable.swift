// The key table of a TimerWheel: key → (due, handle), open addressing, linear probing, Fibonacci
// hashing, with *lazy* removal of expired keys.
//
// A bucket is 16 bytes: the due, the top 32 bits of the key's hash (its fingerprint, which also
// gives its home bucket, so growing and deleting never look anywhere else) and the handle. The
// key itself is confirmed in the timer's slot entry, only on a fingerprint match (almost always
// the right timer); cancel has to touch that entry anyway to swap-remove it.
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
        /// The top 32 bits of `hash(key)`.
        var fingerprint: UInt32
        /// The handle in the low 31 bits, `overdueFlag` above them; `emptyBucket` when empty.
        /// (Handles stay below Int32.max, so a used tag is never `emptyBucket`.)
        var tag: UInt32

        static let empty = Bucket(due: 0, fingerprint: 0, tag: TimerWheel.emptyBucket)
        var isEmpty: Bool { tag == TimerWheel.emptyBucket }
        var handle: UInt32 { tag & ~TimerWheel.overdueFlag }
        var isOverdue: Bool { tag & TimerWheel.overdueFlag != 0 && !isEmpty }
    }

    static let emptyBucket = UInt32.max
    static let overdueFlag: UInt32 = 1 << 31

    /// key × 2^64/φ: its top bits are well mixed even for sequential rowids.
    @inline(__always) static func hash(_ key: Int64) -> UInt64 {
        UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15
    }

    @inline(__always) static func fingerprint(_ key: Int64) -> UInt32 {
        UInt32(truncatingIfNeeded: hash(key) >> 32)
    }

    /// Home bucket of a fingerprint. `tableShift` ≥ 32 because the table never exceeds 2^32
    /// buckets (fewer than Int32.max timers at occupancy ≤ 3/4).
    @inline(__always) func home(of fingerprint: UInt32) -> Int {
        Int(truncatingIfNeeded: UInt64(fingerprint) >> UInt64(tableShift - 32))
    }

    /// The key of live bucket `b`, read from its timer's slot entry (placed: invariants 1, 3).
    @inline(__always) func key(of b: Bucket) -> Int64 {
        slots[listIndex(ofTick: Self.tick(b.due))][Int(position[Int(b.handle)])].key
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
            if b.fingerprint == fp && isLive(b) && self.key(of: b) == key { return p }
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
            } else if b.fingerprint == fp && self.key(of: b) == key {
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

    /// Drops stale buckets; doubles the table when more than half of it is live. O(buckets).
    mutating func rebuildTable() {
        let old = table
        let grow = live * 2 > old.count
        table = Array(repeating: .empty, count: grow ? old.count * 2 : old.count)
        if grow { tableShift -= 1 }
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
