import SchedCalendar

// Expiry, cascading and re-basing of a TimerWheel.

extension TimerWheel {
    /// Moves the wheel to `instant`, calling `body` with every timer due at or before it, in
    /// (due, key) order, after removing it. Allocation-free in the steady state; `body` cannot
    /// touch the wheel (exclusive access). See `advance(to:)` for the semantics.
    ///
    /// Forward: the overdue list (all due before `elapsed`) expires first, then occupied slots are
    /// taken in time order while their first tick is ≤ the target tick: a level-0 slot expires
    /// (sorted by (due, key)); a higher-level slot cascades its entries to lower levels. A level-0
    /// slot of the target tick itself may keep entries due later in that same millisecond.
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
            // All overdue dues are < elapsed's tick start ≤ t: they all expire.
            expireList(Self.overdueList, through: t, body)
            changed = true
        }
        while let (level, slot) = earliestSlot() {
            let start = slotStart(level: level, slot: slot)
            if start > target { break }
            assert(start >= elapsed, "slot (\(level), \(slot)) starts at \(start) before elapsed=\(elapsed)")
            elapsed = start
            let list = level * Self.slotsPerLevel + slot
            if level == 0 {
                expireList(list, through: t, body)
                changed = true
                // Leftovers are due later within the target tick itself: stop there.
                if heads[list] != Self.none { break }
            } else {
                cascade(list, from: level)
            }
        }
        if target > elapsed { elapsed = target }
        if changed { recomputeNext() }
    }

    /// Expires the entries of `list` due at or before `t` in (due, key) order, and re-links the
    /// rest (only possible for the level-0 slot of the target tick).
    ///
    /// Ordering hazard: the whole list is detached before any entry is freed or re-linked, so that
    /// walking it never follows a link rewritten by the free list or by `linkFront`.
    mutating func expireList(_ list: Int, through t: Int64, _ body: (Int64, Instant) -> Void) {
        var buffer: [Int32] = []
        swap(&buffer, &scratch)
        defer { buffer.removeAll(keepingCapacity: true); swap(&buffer, &scratch) }
        var i = takeList(list)
        while i != Self.none {
            buffer.append(i)
            i = slab[Int(i)].next
        }
        if buffer.count > 1 {
            buffer.sort { a, b in
                let da = slab[Int(a)].due, db = slab[Int(b)].due
                return da != db ? da < db : slab[Int(a)].key < slab[Int(b)].key
            }
        }
        for i in buffer {
            let d = slab[Int(i)].due
            if d > t {
                linkFront(i, list: list)
                continue
            }
            let key = slab[Int(i)].key
            if let position = tablePosition(of: key) { tableRemove(at: position) }
            free(i)
            live -= 1
            body(key, Instant(microseconds: d))
        }
    }

    /// Re-inserts every entry of a higher-level slot relative to the new `elapsed` (its start).
    /// Each lands on a strictly lower level, so the detached list is never appended to.
    mutating func cascade(_ list: Int, from level: Int) {
        var i = takeList(list)
        while i != Self.none {
            let n = slab[Int(i)].next
            let target = listIndex(ofTick: Self.tick(slab[Int(i)].due))
            assert(target / Self.slotsPerLevel < level,
                   "cascade from level \(level) kept due=\(slab[Int(i)].due) at list \(target); elapsed=\(elapsed)")
            linkFront(i, list: target)
            i = n
        }
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
