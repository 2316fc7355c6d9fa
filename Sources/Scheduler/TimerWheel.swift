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
/// ## Invariants (checked by `invariantViolations()`, asserted in tests after every step)
/// 1. An entry with tick `W` is in exactly the list `listIndex(ofTick: W)` computed from the
///    current `elapsed`: the overdue list iff `W < E`; otherwise level `L`, slot digit `L` of `W`.
///    Hence every level-`L > 0` entry has the same digits above `L` as `E` and a larger digit `L`,
///    so **every entry at a lower level expires before every entry at a higher level**, and within
///    a level lower slots expire first: the earliest entry is in the lowest occupied slot of the
///    lowest occupied level (found with one `trailingZeroBitCount` per level).
/// 2. Bit `s` of `occupied[L]` is set iff slot `(L, s)` is non-empty.
/// 3. Lists are doubly linked by `Int32` slab index (`-1` ends a list); heads are per slot.
/// 4. The key table maps every pending key to its slab index and nothing else.
/// 5. `cachedNext` is the minimum due of all pending entries (nil when empty).
/// 6. `elapsed == tick(now)` after every public operation.
///
/// ## Complexity
/// `insert`, `cancel`, `due(ofKey:)`: O(1) expected (open-addressing key table; list link and
/// unlink by index). `nextExpiry`: O(1) (cached). When the cached earliest entry leaves, the
/// cache is recomputed by scanning only the earliest occupied slot (plus the overdue list):
/// usually a handful of entries, but a far slot can be large (1M timers all due within the same
/// 12-day level-5 slot: cancelling the earliest one scans them); the scan also warms the cache
/// lines the next advance takes out.
/// `advance(to:)` forward: O(expired + cascaded + levels + sort), every entry descending at most
/// once per level. Only the due entries of the slot being taken out are sorted: one tick's worth
/// when the daemon wakes at `nextExpiry`, one slot's worth per slot when a jump covers whole
/// slots. Entries left in the target tick's slot (due later in that millisecond) are re-examined
/// by each advance within that millisecond. `advance(to:)` backwards (a
/// clock step back, rare): O(n) re-base of every entry relative to the earlier tick.
///
/// ## Memory
/// Per pending timer: key 8 + due 8 + next 4 + prev 4 = 24 bytes in the slab, plus 8 bytes per
/// key-table bucket at load 3/8…3/4 (11–21 bytes) — 35–70 bytes depending on growth slack.
/// Freed slab entries are reused through a free list; storage never shrinks.
public struct TimerWheel: Sendable {
    /// Microseconds per tick (1 ms).
    static let tickMicros: Int64 = 1000
    static let slotBits = 6
    static let slotsPerLevel = 64
    /// 11 levels of 6 bits cover the 64-bit tick space, so no overflow list is needed.
    static let levelCount = 11
    /// Index of the overdue list in `heads`, after the 11 × 64 slot heads.
    static let overdueList = levelCount * slotsPerLevel
    /// End-of-list sentinel.
    static let none: Int32 = -1
    /// Marks a slab entry on the free list in `prev` (debug aid).
    static let freeMark: Int32 = -2

    /// The instant the wheel has advanced to.
    public internal(set) var now: Instant
    /// `tick(now)`: the tick the wheel has processed up to (see invariant 6).
    var elapsed: UInt64

    /// One pending (or free) timer. 24 bytes: the fields walked together when a slot expires or
    /// cascades share one cache line (an array of structs: one miss per entry instead of four).
    struct Entry {
        var due: Int64
        var key: Int64
        var next: Int32
        var prev: Int32
    }

    /// The slab, indexed by Int32; free entries are chained through `next`.
    var slab: [Entry] = []
    var freeHead: Int32 = TimerWheel.none
    var live = 0

    /// List heads: 11 × 64 slots, then the overdue list.
    var heads: [Int32]
    /// Per level, bit `s` set iff slot `s` is non-empty.
    var occupied: [UInt64]

    /// Open-addressing table (linear probing, Fibonacci hashing): each bucket is the top 32 bits
    /// of the key's hash (its fingerprint, which also gives its home bucket) above the Int32 slab
    /// index, or `emptyBucket`.
    var table: [UInt64]
    var tableShift: Int

    /// The earliest due of any pending entry, in microseconds.
    var cachedNext: Int64?
    /// Reused buffer for sorting a slot's entries on expiry.
    var scratch: [Int32] = []

    public init(now: Instant) {
        self.now = now
        self.elapsed = Self.tick(now.microseconds)
        self.heads = Array(repeating: Self.none, count: Self.overdueList + 1)
        self.occupied = Array(repeating: 0, count: Self.levelCount)
        self.table = Array(repeating: Self.emptyBucket, count: 16)
        self.tableShift = 64 - 4
    }

    /// Number of pending timers.
    public var count: Int { live }

    /// Adds a timer, or moves an existing one with the same key. O(1).
    /// A `due` at or before `now` expires on the next `advance`.
    public mutating func insert(key: Int64, due: Instant) {
        let d = due.microseconds
        if let i = tableFind(key) {
            let old = slab[Int(i)].due
            unlink(i)
            slab[Int(i)].due = d
            link(i)
            if old == cachedNext && d > old { recomputeNext() } else { lowerNext(d) }
            return
        }
        precondition(live < Int(Int32.max), "TimerWheel holds at most Int32.max timers")
        let i = allocate(key: key, due: d)
        link(i)
        tableInsert(i)
        live += 1
        lowerNext(d)
    }

    /// Removes a timer; returns whether it was present. O(1).
    @discardableResult public mutating func cancel(key: Int64) -> Bool {
        guard let position = tablePosition(of: key) else { return false }
        let i = slabIndex(atBucket: position)
        tableRemove(at: position)
        let d = slab[Int(i)].due
        unlink(i)
        free(i)
        live -= 1
        if d == cachedNext { recomputeNext() }
        return true
    }

    /// The due instant of `key`, if pending. O(1).
    public func due(ofKey key: Int64) -> Instant? {
        guard let i = tableFind(key) else { return nil }
        return Instant(microseconds: slab[Int(i)].due)
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

    /// Buckets in the key table (a power of two; load is kept ≤ 3/4).
    public var tableBuckets: Int { table.count }

    /// Bytes of storage currently allocated by the wheel (slab, key table, heads, bitmaps,
    /// scratch), from array capacities.
    public var allocatedBytes: Int {
        slab.capacity * MemoryLayout<Entry>.stride
            + table.capacity * 8 + heads.capacity * 4 + occupied.capacity * 8 + scratch.capacity * 4
    }
}
