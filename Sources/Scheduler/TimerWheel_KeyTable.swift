// The key → slab index table of a TimerWheel: open addressing, linear probing, Fibonacci hashing.
//
// Stores only Int32 slab indices (4 bytes per bucket); the key itself is read from the slab, so
// the table adds 4 / load bytes per timer. Load is kept ≤ 3/4. Deletion shifts later entries of
// the probe run back (no tombstones), so lookups never slow down after many cancels.

extension TimerWheel {
    /// Home bucket of `key`: the top bits of key × 2^64/φ.
    @inline(__always) func home(_ key: Int64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: key) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(tableShift))
    }

    /// The bucket holding `key`, if present.
    @inline(__always) func tablePosition(of key: Int64) -> Int? {
        let mask = table.count - 1
        var p = home(key)
        while true {
            let s = table[p]
            if s == Self.none { return nil }
            if keys[Int(s)] == key { return p }
            p = (p + 1) & mask
        }
    }

    /// The slab index of `key`, if present.
    @inline(__always) func tableFind(_ key: Int64) -> Int32? {
        guard let p = tablePosition(of: key) else { return nil }
        return table[p]
    }

    /// Adds slab entry `i` (whose key is not in the table), growing the table first if needed.
    mutating func tableInsert(_ i: Int32) {
        if (live + 1) * 4 > table.count * 3 { growTable() }
        let mask = table.count - 1
        var p = home(keys[Int(i)])
        while table[p] != Self.none { p = (p + 1) & mask }
        table[p] = i
    }

    /// Empties bucket `position`, moving later members of its probe run back into the hole.
    mutating func tableRemove(at position: Int) {
        let mask = table.count - 1
        var hole = position
        var j = position
        while true {
            j = (j + 1) & mask
            let s = table[j]
            if s == Self.none { break }
            let h = home(keys[Int(s)])
            // `s` may move into the hole unless its home lies cyclically in (hole, j].
            let homeAfterHole = hole <= j ? (h > hole && h <= j) : (h > hole || h <= j)
            if !homeAfterHole {
                table[hole] = s
                hole = j
            }
        }
        table[hole] = Self.none
    }

    /// Doubles the table and re-inserts every index.
    mutating func growTable() {
        let old = table
        table = Array(repeating: Self.none, count: old.count * 2)
        tableShift -= 1
        let mask = table.count - 1
        for s in old where s != Self.none {
            var p = home(keys[Int(s)])
            while table[p] != Self.none { p = (p + 1) & mask }
            table[p] = s
        }
    }
}
