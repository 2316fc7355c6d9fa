// Tick arithmetic, slot arrays and handles of a TimerWheel.

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

    /// Appends `entry` to the slot array its due belongs to.
    @inline(__always) mutating func place(_ entry: Slot) {
        let list = listIndex(ofTick: Self.tick(entry.due))
        slots[list].append(entry)
        if list < Self.overdueList { occupied[list >> 6] |= 1 << UInt64(list & 63) }
    }

    /// Detaches a whole slot array (replaced by the empty `spare`), clearing its bit.
    @inline(__always) mutating func takeList(_ list: Int) -> [Slot] {
        var taken: [Slot] = []
        swap(&taken, &spare)
        swap(&taken, &slots[list])
        clearOccupied(list)
        return taken
    }

    /// Clears the occupied bit of a slot left empty (invariant 2; the overdue list has none).
    @inline(__always) mutating func clearOccupied(_ list: Int) {
        if list < Self.overdueList { occupied[list >> 6] &= ~(1 << UInt64(list & 63)) }
    }

    /// Gives a taken array's storage back as the next `spare` (emptied, capacity kept).
    @inline(__always) mutating func returnSpare(_ array: inout [Slot]) {
        array.removeAll(keepingCapacity: true)
        if array.capacity >= spare.capacity { swap(&array, &spare) }
    }

    /// The most handles a wheel hands out: the key table's tag keeps 30 bits for one.
    static let handleLimit = 1 << 30 - 1

    /// A handle for a new timer of `key`, the last freed one when there is one.
    @inline(__always) mutating func allocateHandle(key: Int64) -> UInt32 {
        let h: UInt32
        if !freeHandles.isEmpty {
            h = freeHandles.removeLast()
        } else {
            precondition(handleCount < Self.handleLimit, "TimerWheel holds at most 2^30 - 1 timers and cancelled entries")
            if handleCount & 63 == 0 { cancelled.append(0) }
            h = UInt32(truncatingIfNeeded: handleCount)
            handleCount += 1
        }
        if Self.isWide(key) { wideKeys[h] = key }
        return h
    }

    /// Frees the handle of an entry (of `key`) that has left its slot array, expired or dropped.
    @inline(__always) mutating func releaseHandle(_ h: UInt32, key: Int64) {
        if Self.isWide(key) { wideKeys[h] = nil }
        freeHandles.append(h)
    }

    @inline(__always) mutating func lowerNext(_ due: Int64) {
        if let current = cachedNext, current <= due { return }
        cachedNext = due
    }

    /// Recomputes `cachedNext` (invariant 5) from the overdue list, or else from the earliest
    /// occupied slot (invariant 1), passing over its cancelled entries; a list that holds only
    /// cancelled entries is emptied and passed over for the next. O(entries scanned), contiguous scans.
    mutating func recomputeNext() {
        while true {
            var list = Self.overdueList
            if slots[list].isEmpty {
                guard let (level, slot) = earliestSlot() else { cachedNext = nil; return }
                list = level * Self.slotsPerLevel + slot
            }
            var best = Int64.max
            if cancelledIn[list] == 0 {
                for entry in slots[list] { best = min(best, entry.due) }
            } else if Int(cancelledIn[list]) == slots[list].count {
                dropCancelled(inList: list)
                continue
            } else {
                // The list is taken out (and its cancelled entries dropped) when the wheel reaches it.
                for entry in slots[list] where !isCancelled(entry.handle) { best = min(best, entry.due) }
            }
            cachedNext = best
            return
        }
    }
}
