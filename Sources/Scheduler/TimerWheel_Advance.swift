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
        // Buckets of entries due at or before `flagged` carry the overdue flag (invariant 7).
        let flagged = min(now.microseconds, t)
        var changed = false
        if t < now.microseconds {
            unflagAndPurge(through: t)
            if target < elapsed { rebase(to: target) }
            changed = true
        }
        now = instant
        if !slots[Self.overdueList].isEmpty {
            // All overdue dues are before elapsed's tick, hence ≤ t: they all expire.
            processList(Self.overdueList, through: t, flagged: flagged, body)
            changed = true
        }
        while let (level, slot) = earliestSlot() {
            let start = slotStart(level: level, slot: slot)
            if start > target { break }
            assert(start >= elapsed, "slot (\(level), \(slot)) starts at \(start) before elapsed=\(elapsed)")
            elapsed = start
            let list = level * Self.slotsPerLevel + slot
            if processList(list, through: t, flagged: flagged, body) { changed = true }
            // Entries left in a level-0 slot are due later within the target tick itself: stop.
            if level == 0 && !slots[list].isEmpty { break }
        }
        if target > elapsed { elapsed = target }
        if changed { recomputeNext() }
        sweepIfNeeded()
    }

    /// Takes out the earliest list (or the overdue list): drops its cancelled entries, expires
    /// its entries due at or before `t` in (due, key) order, and re-places the others relative to
    /// `elapsed` (the slot's start). Returns whether anything expired.
    ///
    /// Why this is in order: the list is the earliest occupied one (invariant 1), everything before
    /// its range has already expired and everything in its range is in it, so its due entries are
    /// exactly the next ones. Re-placed entries (due after `t`) land on a strictly lower level,
    /// or, at level 0, back in this slot (only for the target tick, where the caller stops).
    @discardableResult
    mutating func processList(_ list: Int, through t: Int64, flagged: Int64,
                              _ body: (Int64, Instant) -> Void) -> Bool {
        // Every cancelled entry of the list is dropped below (read before the list is taken, so no
        // reference to it is held across the write).
        let anyCancelled = cancelledIn[list] > 0
        if anyCancelled { cancelledIn[list] = 0 }
        // Common case (wake-ups): a single entry, popped in place (the array keeps its capacity).
        if slots[list].count == 1 {
            let entry = slots[list].removeLast()
            clearOccupied(list)
            if anyCancelled { dropCancelled(entry); return false }
            if entry.due > t { place(entry); return false }
            expire(entry, flagged: flagged, body)
            return true
        }
        var taken = takeList(list)
        defer { returnSpare(&taken) }
        var buffer: [Slot] = []
        swap(&buffer, &dueBuffer)
        defer { buffer.removeAll(keepingCapacity: true); swap(&buffer, &dueBuffer) }
        for entry in taken {
            if anyCancelled && isCancelled(entry.handle) {
                dropCancelled(entry)
            } else if entry.due <= t {
                buffer.append(entry)
            } else {
                assert(list == Self.overdueList || listIndex(ofTick: Self.tick(entry.due)) / Self.slotsPerLevel
                       < max(1, list / Self.slotsPerLevel), "re-placing due=\(entry.due) from list \(list) would not descend; elapsed=\(elapsed)")
                place(entry)
            }
        }
        if buffer.count > 1 {
            buffer.sort { a, b in a.due != b.due ? a.due < b.due : a.key < b.key }
        }
        for entry in buffer { expire(entry, flagged: flagged, body) }
        return !buffer.isEmpty
    }

    /// Releases a taken-out entry and reports it. Its key-table bucket becomes stale by itself
    /// (invariant 7) unless it is flagged overdue (due ≤ `flagged`), which is removed here.
    @inline(__always) mutating func expire(_ entry: Slot, flagged: Int64, _ body: (Int64, Instant) -> Void) {
        if entry.due <= flagged, let p = tablePosition(ofOverdue: entry.handle, key: entry.key) { tableRemove(at: p) }
        releaseHandle(entry.handle, key: entry.key)
        live -= 1
        body(entry.key, Instant(microseconds: entry.due))
    }

    /// Before `now` moves back to `t`: removes stale buckets (which would otherwise look live
    /// again) and keeps the overdue flag only on dues ≤ `t` (invariant 7). O(buckets).
    mutating func unflagAndPurge(through t: Int64) {
        let old = table
        table = Array(repeating: .empty, count: old.count)
        tableUsed = 0
        let mask = table.count - 1
        for var b in old where !b.isEmpty && isLive(b) {
            if b.isOverdue && b.due > t { b.tag &= ~Self.overdueFlag }
            var p = home(of: b.fingerprint)
            while !table[p].isEmpty { p = (p + 1) & mask }
            table[p] = b
            tableUsed += 1
        }
    }

    /// Re-bases every entry relative to an earlier tick (a clock step back), dropping the
    /// cancelled ones. O(n + slots): the level of an entry depends on `elapsed`, and moving
    /// `elapsed` back invalidates all of them.
    mutating func rebase(to tick: UInt64) {
        sweepCancelled()
        var buffer: [Slot] = []
        buffer.reserveCapacity(live)
        for list in 0..<slots.count {
            buffer.append(contentsOf: slots[list])
            slots[list].removeAll(keepingCapacity: true)
        }
        for level in 0..<Self.levelCount { occupied[level] = 0 }
        elapsed = tick
        for entry in buffer { place(entry) }
    }
}
