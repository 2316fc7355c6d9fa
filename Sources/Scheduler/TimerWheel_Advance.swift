import SchedCalendar

// Expiry, cascading and re-basing of a TimerWheel.

extension TimerWheel {
    /// Moves the wheel to `instant`, calling `body` with every timer due at or before it, in
    /// (due, key) order, after removing it. Allocation-free in the steady state; `body` cannot
    /// touch the wheel (exclusive access). See `advance(to:)` for the semantics.
    ///
    /// Forward: the overdue list (all due before `elapsed`) expires first, then occupied slots are
    /// taken in time order while their first tick is ≤ the target tick: entries due by the target
    /// expire (sorted by (due, key)), the rest cascade to lower levels. A level-0 slot of the
    /// target tick itself may keep entries due later in that same millisecond.
    /// Backwards (target tick < `elapsed`): every entry is first re-based relative to the earlier
    /// tick, O(n).
    public mutating func advance(to instant: Instant, _ body: (_ key: Int64, _ due: Instant) -> Void) {
        let t = instant.microseconds
        let target = Self.tick(t)
        var changed = false
        if target < elapsed {
            rebase(to: target)
            changed = true
        }
        now = instant
        if heads[Self.overdueList] != Self.none {
            // All overdue dues are before elapsed's tick, hence ≤ t: they all expire.
            processList(Self.overdueList, through: t, body)
            changed = true
        }
        while let (level, slot) = earliestSlot() {
            let start = slotStart(level: level, slot: slot)
            if start > target { break }
            assert(start >= elapsed, "slot (\(level), \(slot)) starts at \(start) before elapsed=\(elapsed)")
            elapsed = start
            let list = level * Self.slotsPerLevel + slot
            if processList(list, through: t, body) { changed = true }
            // Entries left in a level-0 slot are due later within the target tick itself: stop.
            if level == 0 && heads[list] != Self.none { break }
        }
        if target > elapsed { elapsed = target }
        if changed { recomputeNext() }
    }

    /// Takes out the earliest list (or the overdue list): expires its entries due at or before
    /// `t` in (due, key) order, and re-links the others relative to `elapsed` (the slot's start).
    /// Returns whether anything expired.
    ///
    /// Why this is in order: the list is the earliest occupied one (invariant 1), everything before
    /// its range has already expired and everything in its range is in it, so its due entries are
    /// exactly the next ones. Re-linked entries (due after `t`) land on a strictly lower level,
    /// or, at level 0, back in this slot (only for the target tick, where the caller stops).
    /// Ordering hazard: the list is detached first and each `next` is read before its entry is
    /// re-linked or freed, since both rewrite it.
    @discardableResult
    mutating func processList(_ list: Int, through t: Int64, _ body: (Int64, Instant) -> Void) -> Bool {
        var i = takeList(list)
        // Common case (wake-ups): a single entry.
        if i != Self.none && slab[Int(i)].next == Self.none {
            if slab[Int(i)].due > t { link(i); return false }
            expire(i, body)
            return true
        }
        var buffer: [Int32] = []
        swap(&buffer, &scratch)
        defer { buffer.removeAll(keepingCapacity: true); swap(&buffer, &scratch) }
        while i != Self.none {
            let n = slab[Int(i)].next
            if slab[Int(i)].due <= t {
                buffer.append(i)
            } else {
                assert(list == Self.overdueList || listIndex(ofTick: Self.tick(slab[Int(i)].due)) / Self.slotsPerLevel
                       < max(1, list / Self.slotsPerLevel), "re-linking due=\(slab[Int(i)].due) from list \(list) would not descend; elapsed=\(elapsed)")
                link(i)
            }
            i = n
        }
        if buffer.count > 1 {
            buffer.sort { a, b in
                let da = slab[Int(a)].due, db = slab[Int(b)].due
                return da != db ? da < db : slab[Int(a)].key < slab[Int(b)].key
            }
        }
        for i in buffer { expire(i, body) }
        return !buffer.isEmpty
    }

    /// Removes unlinked entry `i` from the key table and the slab, then reports it.
    @inline(__always) mutating func expire(_ i: Int32, _ body: (Int64, Instant) -> Void) {
        let key = slab[Int(i)].key, due = slab[Int(i)].due
        if let position = tablePosition(of: key) { tableRemove(at: position) }
        free(i)
        live -= 1
        body(key, Instant(microseconds: due))
    }

    /// Re-bases every entry relative to an earlier tick (a clock step back). O(n + slots): the
    /// level of an entry depends on `elapsed`, and moving `elapsed` back invalidates all of them.
    mutating func rebase(to tick: UInt64) {
        var buffer: [Int32] = []
        buffer.reserveCapacity(live)
        for list in 0..<heads.count {
            var i = takeList(list)
            while i != Self.none {
                buffer.append(i)
                i = slab[Int(i)].next
            }
        }
        elapsed = tick
        for i in buffer { link(i) }
    }
}
