// Lazy cancellation in a TimerWheel: a cancelled timer's entry stays in its slot array, flagged by
// its handle's bit, until its slot is taken out or scanned, or a sweep drops it (invariant 3).

extension TimerWheel {
    /// Whether handle `h`'s entry is cancelled. One bit, in a bitmap of 1 bit per handle (128 KiB at
    /// 1M handles, so it stays in a core's cache while the key table and the slot arrays do not).
    @inline(__always) func isCancelled(_ h: UInt32) -> Bool {
        cancelled[Int(h >> 6)] & (1 << UInt64(h & 63)) != 0
    }

    /// Flags pending handle `h` (due `due`) cancelled; its entry stays placed, in the list its due
    /// names (invariant 1), which is counted.
    @inline(__always) mutating func markCancelled(_ h: UInt32, due: Int64) {
        cancelled[Int(h >> 6)] |= 1 << UInt64(h & 63)
        cancelledCount += 1
        cancelledIn[listIndex(ofTick: Self.tick(due))] += 1
    }

    /// Forgets cancelled `entry`, which has just left its slot array, and frees its handle. The
    /// caller sets its list's `cancelledIn`.
    @inline(__always) mutating func dropCancelled(_ entry: Slot) {
        let h = entry.handle
        cancelled[Int(h >> 6)] &= ~(1 << UInt64(h & 63))
        cancelledCount -= 1
        releaseHandle(h, key: entry.key)
    }

    /// Sweeps when cancelled entries exceed half the pending ones plus `sweepSlack` (invariant 3).
    /// Each sweep is O(entries + lists) and follows at least `live / 2 + sweepSlack` cancels since
    /// the last, so a cancel pays O(1) of it, amortised.
    @inline(__always) mutating func sweepIfNeeded() {
        if cancelledCount > live / 2 + Self.sweepSlack { sweepCancelled() }
    }

    /// Drops every cancelled entry from every list. O(entries + lists).
    mutating func sweepCancelled() {
        for list in 0..<slots.count where cancelledIn[list] > 0 {
            dropCancelled(inList: list)
        }
    }

    /// Drops the cancelled entries of `list`, keeping the others in order; clears its occupied bit
    /// when it is left empty. One pass, O(entries of the list).
    mutating func dropCancelled(inList list: Int) {
        cancelledIn[list] = 0
        var entries: [Slot] = []
        swap(&entries, &slots[list])
        var kept = 0
        for i in entries.indices {
            let entry = entries[i]
            if isCancelled(entry.handle) {
                dropCancelled(entry)
            } else {
                entries[kept] = entry
                kept += 1
            }
        }
        entries.removeLast(entries.count - kept)
        swap(&entries, &slots[list])
        if kept == 0 { clearOccupied(list) }
    }
}
