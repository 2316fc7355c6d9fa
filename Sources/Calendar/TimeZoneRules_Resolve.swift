extension TimeZoneRules {
    /// One change of offset: from `at` (POSIX seconds) on, `after` replaces `before`.
    struct OffsetChange: Sendable, Hashable {
        var at: Int64
        var before: ZoneOffset
        var after: ZoneOffset
    }

    /// Calls `body` with every change in `lower < at ≤ upper`, ascending, and returns the offset in
    /// force at `lower`. O(log n + k) for k changes, plus two rule evaluations per footer year in
    /// the range; allocation-free.
    @discardableResult
    func forEachChange(from lower: Int64, through upper: Int64, _ body: (OffsetChange) -> Void) -> ZoneOffset {
        let initial = offset(atSeconds: lower)
        var current = initial
        if footer == nil || lower < footerStart {
            var i = tableIndex(atSeconds: lower) + 1
            let tableEnd = footer == nil ? transitions.count : transitions.count - 1
            while i < tableEnd, transitions[i] <= upper {
                body(OffsetChange(at: transitions[i], before: current, after: offsets[i]))
                current = offsets[i]
                i += 1
            }
        }
        guard let footer else { return initial }
        if lower < footerStart && footerStart <= upper {
            let after = footer.offset(atSeconds: footerStart)
            body(OffsetChange(at: footerStart, before: current, after: after))
            current = after
        }
        let from = max(lower, footerStart)
        guard from < upper else { return initial }
        let firstYear = civilFromDays(floorDiv(from, 86_400)).year - 1
        let lastYear = civilFromDays(floorDiv(upper, 86_400)).year + 1
        for year in firstYear...lastYear {
            guard let (a, b) = footer.changes(in: year) else { break }
            if a.instant > from && a.instant <= upper {
                body(OffsetChange(at: a.instant, before: current, after: a.offset))
                current = a.offset
            }
            if b.instant > from && b.instant <= upper {
                body(OffsetChange(at: b.instant, before: current, after: b.offset))
                current = b.offset
            }
        }
        return initial
    }

    /// The offset in force at `lower` and every change in `lower < at ≤ upper`, ascending.
    func offsetChanges(from lower: Int64, through upper: Int64) -> (initial: ZoneOffset, changes: [OffsetChange]) {
        var changes: [OffsetChange] = []
        let initial = forEachChange(from: lower, through: upper) { changes.append($0) }
        return (initial, changes)
    }

    /// Every instant whose wall-clock reading in this zone is `wall`: none in a gap (spring forward,
    /// a skipped day), one usually, two in a fold (fall back), earlier first.
    ///
    /// 2026-03-08 02:30 in America/New_York → (nil, nil); 2026-11-01 01:30 → (05:30Z, 06:30Z);
    /// 2026-07-01 12:00 → (16:00Z, nil). O(log transitions), allocation-free. A wall time matched by
    /// three or more instants (no real zone has one) reports the first two.
    public func wallCandidates(_ wall: CivilDateTime) -> (first: Instant?, second: Instant?) {
        let c = candidates(wall)
        guard c.count > 0 else { return (nil, nil) }
        return (wall.instant(offsetSeconds: c.firstOffset), c.count > 1 ? wall.instant(offsetSeconds: c.secondOffset) : nil)
    }

    /// Resolves a wall-clock time with the rules of RFC 5545 §3.3.5 (CONTRACT §2):
    ///
    /// - unique: its only instant.
    /// - gap: the offset in force *before* the gap: 2026-03-08 02:30 America/New_York → 07:30Z
    ///   (03:30 EDT), `offsetSeconds` −18000; `laterInstant` uses the offset after the gap (06:30Z).
    /// - fold: the first occurrence: 2026-11-01 01:30 America/New_York → 05:30Z (EDT, −14400);
    ///   `laterInstant` 06:30Z.
    ///
    /// Python's `zoneinfo` with `fold=0` gives the same instants. O(log transitions).
    public func resolve(_ wall: CivilDateTime) -> WallResolution {
        let c = candidates(wall)
        if c.count >= 2 {
            return WallResolution(kind: .fold, instant: wall.instant(offsetSeconds: c.firstOffset),
                                  offsetSeconds: c.firstOffset, laterInstant: wall.instant(offsetSeconds: c.secondOffset))
        }
        if c.count == 1 {
            return WallResolution(kind: .unique, instant: wall.instant(offsetSeconds: c.firstOffset),
                                  offsetSeconds: c.firstOffset, laterInstant: nil)
        }
        // A gap: the change whose skipped local span [at + before, at + after) holds the wall time.
        let local = wall.localSeconds
        var before: Int? = nil, after = 0
        let initial = forEachChange(from: c.lower, through: c.upper) { change in
            let b = Int64(change.before.utcOffsetSeconds), a = Int64(change.after.utcOffsetSeconds)
            if a > b && change.at + b <= local && local < change.at + a {
                before = Int(b); after = Int(a)
            }
        }
        let offset = before ?? initial.utcOffsetSeconds
        return WallResolution(kind: .gap, instant: wall.instant(offsetSeconds: offset), offsetSeconds: offset,
                              laterInstant: wall.instant(offsetSeconds: before == nil ? offset : after))
    }

    /// How many instants read `wall` (0, 1, 2; capped at 2) and the offsets of the first two,
    /// earlier instant first (= larger offset first). Also the search window, for gaps.
    ///
    /// Method: an instant t reads `wall` iff t = local − o where o = offset(t). Every offset that can
    /// be in force at such a t is in force somewhere in the window local ± 26 h (offsets are bounded
    /// by `TZifParser.offsetRange`; POSIX offsets by 24:59:59): each table offset in the window and,
    /// when the window reaches the footer's range, both of the footer's offsets are tried.
    /// Allocation-free; O(log n) plus O(1) per offset tried.
    private func candidates(_ wall: CivilDateTime) -> (count: Int, firstOffset: Int, secondOffset: Int, lower: Int64, upper: Int64) {
        let local = wall.localSeconds
        let window = Int64(TZifParser.offsetRange.upperBound + 1)
        let lower = local - window, upper = local + window
        var count = 0, first = 0, second = 0
        func consider(_ o: Int) {
            if (count >= 1 && o == first) || (count >= 2 && o == second) { return }
            guard utcOffset(atSeconds: local - Int64(o)) == o else { return }
            // Keep the two largest offsets = the two earliest instants.
            if count == 0 || o > first { (second, first) = (first, o) } else if count == 1 || o > second { second = o }
            count = min(count + 1, 2)
        }
        if footer == nil || lower < footerStart {
            let i = tableIndex(atSeconds: lower)
            let j = footer == nil || upper < footerStart ? tableIndex(atSeconds: upper) : transitions.count - 1
            if i == j { return (1, offsets[i].utcOffsetSeconds, 0, lower, upper) }  // no change nearby
            for k in i...j { consider(offsets[k].utcOffsetSeconds) }
        }
        if let footer, upper >= footerStart {
            consider(footer.std.utcOffsetSeconds)
            if let dst = footer.dst { consider(dst.offset.utcOffsetSeconds) }
        }
        return (count, first, second, lower, upper)
    }
}
