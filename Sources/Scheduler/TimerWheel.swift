import SchedCalendar

/// A hierarchical hashed timing wheel (Varghese & Lauck) of schedule keys by due instant.
///
/// Holds only a key (the schedule's SQLite rowid) and its exact due instant per timer. Not
/// thread-safe: owned by one isolation domain. Expiry order is by (due, key), so ties break
/// deterministically.
///
/// ## Structure (model: tokio `runtime/time/wheel`)
/// Time is cut into **ticks** of 1 ms. A due instant maps to the tick that *ends* at or after it
/// (`tick = ⌈µs / 1000⌉`), so a slot is only taken out once every due in it has been reached; the
/// exact microsecond due is kept per entry and is compared again on expiry, so nothing fires early
/// even in the partly elapsed millisecond of the target instant, and it decides the final order.
/// Ticks are shifted to `UInt64` (sign bit flipped) so that the whole `Int64` microsecond range
/// maps to 2^54 ordered ticks and no overflow list is ever needed.
///
/// There are 11 **levels** of 64 **slots**. Relative to the wheel's elapsed tick `E`, an entry
/// with tick `W` lives at level `L` = index of the highest 6-bit digit in which `W` and `E` differ
/// (level 0 when `W == E`), in the slot named by `W`'s digit `L`:
///
/// | level | slot width     | level span      |
/// |-------|----------------|-----------------|
/// | 0     | 1 ms           | 64 ms           |
/// | 1     | 64 ms          | 4.1 s           |
/// | 2     | 4.1 s          | 4.4 min         |
/// | 3     | 4.4 min        | 4.7 h           |
/// | 4     | 4.7 h          | 12.4 days       |
/// | 5     | 12.4 days      | 2.2 years       |
/// | 6     | 2.2 years      | 139 years       |
/// | 7–10  | …              | the whole range |
///
/// Entries due before `E` (inserted overdue) sit in one extra **overdue list**.
///
/// Each slot is a **contiguous array** of 24-byte (due, key, handle) entries, so expiring or
/// cascading a slot walks memory in order (the CPU prefetches it) and writes nothing else per entry.
/// A **handle** (dense `UInt32`, reused through a stack of free handles) names a timer's entry.
/// The **key table** maps a key to its due and handle (see TimerWheel_KeyTable.swift); expiry does
/// not touch it. A key in 0..<2^32 (every rowid SQLite hands out before its four billionth row) is
/// named exactly by its bucket's fingerprint, so finding it reads nothing but the bucket; any other
/// key is "wide" and is confirmed in `wideKeys`.
///
/// **Cancel is lazy.** Cancelling (or moving) a timer removes its key-table bucket and sets its
/// handle's bit in `cancelled`; its slot entry stays where it is until its slot is taken out, or
/// found to hold only cancelled entries when scanned for the earliest due, or swept, and only then
/// is the handle freed. So a cancel touches the bucket and one bit, not the slot array, the entry
/// swapped into the hole and a position per handle as a swap-remove did (at 1M timers, 2.5
/// simulated data-cache misses a cancel against 5.6: `schedd-bench wheelprofile` under callgrind,
/// BENCHMARKS.md §9 session 16).
/// A **sweep** drops every cancelled entry when, after a cancel, a move or an advance, they
/// outnumber half the pending ones plus `sweepSlack`, so they never hold more than that much memory
/// and each cancel pays O(1) of sweeps, amortised.
///
/// ## Invariants (checked by `invariantViolations()`, asserted in tests after every step)
/// 1. An entry with tick `W` is in exactly the list `listIndex(ofTick: W)` computed from the
///    current `elapsed`: the overdue list iff `W < E`; otherwise level `L`, slot digit `L` of `W`.
///    Hence every level-`L > 0` entry has the same digits above `L` as `E` and a larger digit `L`,
///    so **every entry at a lower level expires before every entry at a higher level**, and within
///    a level lower slots expire first: the earliest entry is in the lowest occupied slot of the
///    lowest occupied level (found with one `trailingZeroBitCount` per level).
/// 2. Bit `s` of `occupied[L]` is set iff slot `(L, s)` is non-empty (cancelled entries count).
/// 3. Every handle below `handleCount` is exactly one of: free (on `freeHandles`), pending (one
///    slot entry, and the key table's bucket for its key names it), or cancelled (one slot entry,
///    its bit set in `cancelled`, no bucket names it). `cancelledCount` counts the cancelled ones,
///    and is at most `live / 2 + sweepSlack`; `cancelledIn[list]` counts those in each list.
///    `wideKeys` holds exactly the handles in use whose key is wide, with that key.
/// 4. Every pending entry's key has a live bucket with its due and handle, and the table has no
///    other live bucket.
/// 5. `cachedNext` is the minimum due of all pending entries (nil when none).
/// 6. `elapsed == tick(now)` after every public operation.
/// 7. A non-empty bucket is live iff it is flagged `overdue` or its due is after `now`; it is
///    flagged iff it is live and its due is at or before `now` (inserted already due). So every
///    other bucket with a due at or before `now` belongs to a timer that expired, and is absent.
///
/// ## Complexity
/// `insert`, `cancel`, `due(ofKey:)`: O(1) expected (one key-table probe; an append to a slot
/// array, or a bit set), plus amortised O(1) of sweeps. `nextExpiry`: O(1) (cached). When the
/// cached earliest entry leaves, the cache is recomputed by scanning only the earliest occupied
/// slot (plus the overdue list), passing over its cancelled entries: usually a handful of
/// contiguous entries, but a far slot can be large (1M timers all due within the same 12-day
/// level-5 slot: cancelling the earliest one scans them).
/// `advance(to:)` forward: O(expired + cancelled + cascaded + levels + sort), every entry
/// descending at most once per level. Only the due entries of the slot being taken out are sorted:
/// one tick's worth when the daemon wakes at `nextExpiry`, one slot's worth per slot when a jump
/// covers whole slots. Entries left in the target tick's slot (due later in that millisecond) are
/// re-examined by each advance within that millisecond. The key table is left alone by expiry
/// (invariant 7); it is purged of expired keys when it fills, O(buckets) amortised over the
/// inserts that filled it. `advance(to:)` backwards (a clock step back, rare): O(n + buckets)
/// re-base of every entry relative to the earlier tick, after purging the expired keys from the
/// table.
///
/// ## Memory
/// Per pending timer: a 24-byte slot entry (due 8, key 8, handle 4, padding), one bit, and a
/// 16-byte key-table bucket at occupancy 3/8…3/4 (21–43 bytes): about 45–67 bytes, plus the
/// slack of slot arrays grown by doubling (allocated, mostly not resident), and at most half as
/// many cancelled entries again (24 bytes each) until a sweep, and 4 bytes per free handle.
/// Measured at 1M timers over a year: 75 bytes/timer resident (`schedd-bench memory`; 81 with a
/// position per handle).
/// Handles and slot capacity are reused; storage never shrinks.
public struct TimerWheel: Sendable {
    /// Microseconds per tick (1 ms).
    static let tickMicros: Int64 = 1000
    static let slotBits = 6
    static let slotsPerLevel = 64
    /// 11 levels of 6 bits cover the 64-bit tick space, so no overflow list is needed.
    static let levelCount = 11
    /// Index of the overdue list in `slots`, after the 11 × 64 slot arrays.
    static let overdueList = levelCount * slotsPerLevel

    /// The instant the wheel has advanced to.
    public internal(set) var now: Instant
    /// `tick(now)`: the tick the wheel has processed up to (see invariant 6).
    var elapsed: UInt64

    /// One timer's entry in a slot array: pending, or cancelled and not yet dropped (invariant 3).
    struct Slot {
        var due: Int64
        var key: Int64
        var handle: UInt32
    }

    /// Cancelled entries allowed beyond half the pending ones before a sweep drops them all.
    static let sweepSlack = 64

    /// Slot arrays: 11 × 64 slots, then the overdue list.
    var slots: [[Slot]]
    /// Per level, bit `s` set iff slot `s` is non-empty.
    var occupied: [UInt64]
    /// Handles ever allocated; every handle is below it.
    var handleCount = 0
    /// Handle → key, for the handles in use whose key is wide (outside 0..<2^32).
    var wideKeys: [UInt32: Int64] = [:]
    /// Bit `h` set iff handle `h` is cancelled: its slot entry is still placed (invariant 3).
    var cancelled: [UInt64] = []
    var cancelledCount = 0
    /// Per list (as `slots`), how many of its entries are cancelled: a list with none is scanned,
    /// taken out and re-placed without looking at `cancelled`.
    var cancelledIn: [UInt32]
    /// Free handles, reused last-freed first.
    var freeHandles: [UInt32] = []
    var live = 0

    /// Open-addressing key table; `tableUsed` counts its non-empty (live or stale) buckets.
    var table: [Bucket]
    var tableShift: Int
    var tableUsed = 0

    /// The earliest due of any pending entry, in microseconds.
    var cachedNext: Int64?
    /// Reused buffers: an empty slot array swapped in for a slot being taken out, and the due
    /// entries of that slot (with their keys) being sorted.
    var spare: [Slot] = []
    var dueBuffer: [Slot] = []

    public init(now: Instant) {
        self.now = now
        self.elapsed = Self.tick(now.microseconds)
        self.slots = Array(repeating: [], count: Self.overdueList + 1)
        self.occupied = Array(repeating: 0, count: Self.levelCount)
        self.cancelledIn = Array(repeating: 0, count: Self.overdueList + 1)
        self.table = Array(repeating: .empty, count: 16)
        self.tableShift = 64 - 4
    }

    /// Number of pending timers.
    public var count: Int { live }

    /// Adds a timer, or moves an existing one with the same key. O(1) expected, plus amortised
    /// sweeps. A `due` at or before `now` expires on the next `advance`.
    public mutating func insert(key: Int64, due: Instant) {
        let d = due.microseconds
        let flag: UInt32 = d <= now.microseconds ? Self.overdueFlag : 0
        let (p, present) = tableSlot(for: key)
        if present {
            let old = table[p]
            if old.due == d { return }
            // The old entry stays placed, cancelled; the timer moves to a new handle.
            markCancelled(old.handle, due: old.due)
            let h = allocateHandle(key: key)
            table[p].due = d
            table[p].tag = h | flag | Self.wideFlag(key)
            place(Slot(due: d, key: key, handle: h))
            if old.due == cachedNext && d > old.due { recomputeNext() } else { lowerNext(d) }
            sweepIfNeeded()
            return
        }
        let h = allocateHandle(key: key)
        table[p] = Bucket(due: d, fingerprint: Self.fingerprint(key), tag: h | flag | Self.wideFlag(key))
        place(Slot(due: d, key: key, handle: h))
        live += 1
        lowerNext(d)
    }

    /// Removes a timer; returns whether it was present. O(1) expected, plus a scan of the earliest
    /// slot when it was the earliest timer (use `cancel(keys:)` for many), plus amortised sweeps.
    @discardableResult public mutating func cancel(key: Int64) -> Bool {
        guard let p = tablePosition(of: key) else { return false }
        let b = table[p]
        removeBucket(at: p, b)
        if b.due == cachedNext { recomputeNext() }
        sweepIfNeeded()
        return true
    }

    /// Removes every timer of `keys`; returns how many were present. O(keys) plus ONE scan of the
    /// earliest slot at the end: cancelling N timers that share the earliest slot (a `track` over
    /// schedules due at one instant) no longer rescans that slot N times (which was O(N²)).
    @discardableResult public mutating func cancel(keys: some Sequence<Int64>) -> Int {
        var removed = 0, earliestGone = false
        for key in keys {
            guard let p = tablePosition(of: key) else { continue }
            let b = table[p]
            earliestGone = earliestGone || b.due == cachedNext
            removeBucket(at: p, b)
            removed += 1
        }
        if earliestGone { recomputeNext() }
        sweepIfNeeded()
        return removed
    }

    /// Removes pending timer `b` (at bucket `p`): its bucket goes, its entry stays, cancelled.
    private mutating func removeBucket(at p: Int, _ b: Bucket) {
        tableRemove(at: p)
        markCancelled(b.handle, due: b.due)
        live -= 1
    }

    /// The due instant of `key`, if pending. O(1).
    public func due(ofKey key: Int64) -> Instant? {
        guard let p = tablePosition(of: key) else { return nil }
        return Instant(microseconds: table[p].due)
    }

    /// The exact earliest due instant of any pending timer (nil when empty), so the owner can sleep
    /// until then instead of ticking. O(1): cached, see the type's complexity notes.
    public var nextExpiry: Instant? { cachedNext.map { Instant(microseconds: $0) } }

    /// Moves the wheel to `instant`, removing and returning every timer due at or before it in
    /// (due, key) order. Moving backwards (a clock step back) expires nothing that was not already
    /// due at the earlier instant and keeps every other timer (an O(n) re-base).
    public mutating func advance(to instant: Instant) -> [(key: Int64, due: Instant)] {
        var expired: [(key: Int64, due: Instant)] = []
        advance(to: instant) { key, due in expired.append((key, due)) }
        return expired
    }

    /// Buckets in the key table (a power of two; occupancy is kept ≤ 3/4).
    public var tableBuckets: Int { table.count }

    /// Sizes the key table for `count` pending timers, so that inserting up to that many never grows it:
    /// a restore knows how many it streams in, and skips the table's doublings (each a copy of the whole
    /// table into a new one twice its size). Never shrinks. O(buckets) when it grows, else O(1).
    public mutating func reserveCapacity(_ count: Int) {
        precondition(count >= 0 && count < Self.handleLimit, "TimerWheel holds at most 2^30 - 1 timers")
        var buckets = table.count
        while count * 2 > buckets { buckets *= 2 }
        if buckets > table.count { rebuildTable(buckets: buckets) }
        cancelled.reserveCapacity((count + 63) / 64)
    }

    /// Bytes of storage currently allocated by the wheel (slot arrays, key table, keys, free
    /// handles, bitmaps, buffers), from array capacities.
    public var allocatedBytes: Int {
        let slotBytes = (slots.reduce(0) { $0 + $1.capacity } + spare.capacity) * MemoryLayout<Slot>.stride
        return slotBytes + slots.capacity * MemoryLayout<[Slot]>.stride
            + table.capacity * MemoryLayout<Bucket>.stride + cancelled.capacity * 8
            + freeHandles.capacity * 4 + occupied.capacity * 8 + cancelledIn.capacity * 4 + dueBuffer.capacity * MemoryLayout<Slot>.stride
    }
}
