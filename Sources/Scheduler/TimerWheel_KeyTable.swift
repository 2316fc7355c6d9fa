// The key table of a TimerWheel: key → (due, handle), open addressing, linear probing, Fibonacci
// hashing, with *lazy* removal of expired keys.
//
// A bucket holds the key, its due and its handle, so a lookup reads one bucket and nothing else.
// Expiry does not touch the table (at 1M timers that would be one cache miss per expired timer,
// in random key order): a bucket whose due is ≤ `now` and that is not flagged `overdue` belongs
// to a timer that has already expired (invariant 7) and counts as absent ("stale"). Stale buckets
// are reused by inserts that probe over them and dropped when the table is rebuilt. Buckets of
// timers inserted already due (due ≤ now) carry the `overdue` flag and are removed explicitly
// when they expire. Cancel removes its bucket by shifting later members of the probe run back
// (no tombstones). Occupancy (live + stale) is kept ≤ 3/4.

extension TimerWheel {
    /// One key-table bucket. 24 bytes.
    struct Bucket {
        var key: Int64
        var due: Int64
        /// The handle in the low 31 bits, `overdueFlag` above them; `emptyBucket` when empty.
        var tag: UInt32

        static let empty = Bucket(key: 0, due: 0, tag: TimerWheel.emptyBucket)
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

    @inline(__always) func home(of key: Int64) -> Int {
        Int(truncatingIfNeeded: Self.hash(key) >> UInt64(tableShift))
    }

    /// Whether a non-empty bucket belongs to a pending timer (invariant 7).
    @inline(__always) func isLive(_ b: Bucket) -> Bool {
        b.isOverdue || b.due > now.microseconds
    }

    /// The bucket position holding pending `key`, if any.
    @inline(__always) func tablePosition(of key: Int64) -> Int? {
        let mask = table.count - 1
        var p = home(of: key)
        while true {
            let b = table[p]
            if b.isEmpty { return nil }
            if b.key == key { return isLive(b) ? p : nil }
            p = (p + 1) & mask
        }
    }

    /// Where to store `key`: its own bucket (live or stale), else the first stale bucket of its
    /// probe run, else the empty bucket ending it. Grows or purges the table first if needed.
    mutating func tableSlot(for key: Int64) -> (position: Int, live: Bool) {
        if (tableUsed + 1) * 4 > table.count * 3 { rebuildTable() }
        let mask = table.count - 1
        var p = home(of: key)
        var reusable: Int?
        while true {
            let b = table[p]
            if b.isEmpty { break }
            if b.key == key { return (p, isLive(b)) }
            if reusable == nil && !isLive(b) { reusable = p }
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
            let h = home(of: b.key)
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
            var p = home(of: b.key)
            while !table[p].isEmpty { p = (p + 1) & mask }
            table[p] = b
            tableUsed += 1
        }
    }
}
