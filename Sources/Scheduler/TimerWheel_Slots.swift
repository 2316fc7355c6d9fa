// Tick arithmetic, slot lists and the slab of a TimerWheel.

extension TimerWheel {
    /// The tick of a due (or of `now`): `⌈µs / 1000⌉`, rounded *up* so a slot is taken out only
    /// when all its dues have been reached, then shifted to `UInt64` by flipping the sign bit so
    /// that unsigned order is time order over the whole `Int64` range.
    @inline(__always) static func tick(_ microseconds: Int64) -> UInt64 {
        // Int64 division truncates toward zero, which is the ceiling for negatives.
        let q = microseconds / tickMicros + (microseconds % tickMicros > 0 ? 1 : 0)
        return UInt64(bitPattern: q) ^ (1 << 63)
    }

    /// The list holding an entry of tick `w` relative to `elapsed` (invariant 1).
    @inline(__always) func listIndex(ofTick w: UInt64) -> Int {
        if w < elapsed { return Self.overdueList }
        let differing = w ^ elapsed
        let level = differing == 0 ? 0 : (63 - differing.leadingZeroBitCount) / Self.slotBits
        let slot = Int(truncatingIfNeeded: w >> UInt64(level * Self.slotBits)) & (Self.slotsPerLevel - 1)
        return level * Self.slotsPerLevel + slot
    }

    /// The first tick covered by slot `slot` of `level`, relative to `elapsed`.
    @inline(__always) func slotStart(level: Int, slot: Int) -> UInt64 {
        // Smart shifts: a shift by 64 or more gives 0 (level 10 has no digits above it).
        let above = (elapsed >> UInt64((level + 1) * Self.slotBits)) << UInt64((level + 1) * Self.slotBits)
        return above | (UInt64(slot) << UInt64(level * Self.slotBits))
    }

    /// The lowest occupied slot of the lowest occupied level: where the earliest entry is
    /// (invariant 1). O(levels).
    @inline(__always) func earliestSlot() -> (level: Int, slot: Int)? {
        for level in 0..<Self.levelCount where occupied[level] != 0 {
            return (level, occupied[level].trailingZeroBitCount)
        }
        return nil
    }

    /// Pushes entry `i` on the front of the list its due belongs to.
    @inline(__always) mutating func link(_ i: Int32) {
        let list = listIndex(ofTick: Self.tick(slab[Int(i)].due))
        linkFront(i, list: list)
    }

    @inline(__always) mutating func linkFront(_ i: Int32, list: Int) {
        let head = heads[list]
        slab[Int(i)].prev = Self.none
        slab[Int(i)].next = head
        if head != Self.none { slab[Int(head)].prev = i }
        heads[list] = i
        if list < Self.overdueList {
            occupied[list >> 6] |= 1 << UInt64(list & 63)
        }
    }

    /// Removes entry `i` from its list, found from its due (invariant 1).
    @inline(__always) mutating func unlink(_ i: Int32) {
        let list = listIndex(ofTick: Self.tick(slab[Int(i)].due))
        let p = slab[Int(i)].prev, n = slab[Int(i)].next
        if p != Self.none {
            slab[Int(p)].next = n
        } else {
            assert(heads[list] == i, "entry \(i) due=\(slab[Int(i)].due) is not the head of list \(list)")
            heads[list] = n
            if n == Self.none && list < Self.overdueList {
                occupied[list >> 6] &= ~(1 << UInt64(list & 63))
            }
        }
        if n != Self.none { slab[Int(n)].prev = p }
    }

    /// Detaches a whole list, returning its first entry (walk it with `next`).
    @inline(__always) mutating func takeList(_ list: Int) -> Int32 {
        let head = heads[list]
        heads[list] = Self.none
        if list < Self.overdueList { occupied[list >> 6] &= ~(1 << UInt64(list & 63)) }
        return head
    }

    /// A slab entry for a new timer, from the free list when possible. Not yet linked.
    @inline(__always) mutating func allocate(key: Int64, due: Int64) -> Int32 {
        if freeHead != Self.none {
            let i = freeHead
            freeHead = slab[Int(i)].next
            slab[Int(i)].key = key
            slab[Int(i)].due = due
            return i
        }
        let i = Int32(slab.count)
        slab.append(Entry(due: due, key: key, next: Self.none, prev: Self.none))
        return i
    }

    /// Returns an unlinked slab entry to the free list.
    @inline(__always) mutating func free(_ i: Int32) {
        slab[Int(i)].next = freeHead
        slab[Int(i)].prev = Self.freeMark
        freeHead = i
    }

    @inline(__always) mutating func lowerNext(_ due: Int64) {
        if let current = cachedNext, current <= due { return }
        cachedNext = due
    }

    /// Recomputes `cachedNext` (invariant 5) from the overdue list, or else from the earliest
    /// occupied slot alone (invariant 1). O(entries in that list).
    mutating func recomputeNext() {
        var i = heads[Self.overdueList]
        if i == Self.none, let (level, slot) = earliestSlot() {
            i = heads[level * Self.slotsPerLevel + slot]
        }
        guard i != Self.none else { cachedNext = nil; return }
        var best = Int64.max
        while i != Self.none {
            best = min(best, slab[Int(i)].due)
            i = slab[Int(i)].next
        }
        cachedNext = best
    }
}
