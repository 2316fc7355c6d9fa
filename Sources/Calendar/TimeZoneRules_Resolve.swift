extension TimeZoneRules {
    /// One change of offset: from `at` (POSIX seconds) on, `after` replaces `before`.
    struct OffsetChange: Sendable, Hashable {
        var at: Int64
        var before: ZoneOffset
        var after: ZoneOffset
    }

    /// The offset in force at `lower` and every change in `lower < at ≤ upper`, ascending.
    /// O(log n + k) for k changes, plus O(years) of the footer's range.
    func offsetChanges(from lower: Int64, through upper: Int64) -> (initial: ZoneOffset, changes: [OffsetChange]) {
        let initial = offset(atSeconds: lower)
        var points: [(at: Int64, after: ZoneOffset)] = []
        if footer == nil || lower < footerStart {
            var i = tableIndex(atSeconds: lower) + 1
            let tableEnd = footer == nil ? transitions.count : transitions.count - 1
            while i < tableEnd, transitions[i] <= upper {
                points.append((transitions[i], offsets[i]))
                i += 1
            }
        }
        if let footer {
            if lower < footerStart && footerStart <= upper {
                points.append((footerStart, footer.offset(atSeconds: footerStart)))
            }
            let from = max(lower, footerStart)
            if from < upper {
                let firstYear = civilFromDays(floorDiv(from, 86_400)).year - 1
                let lastYear = civilFromDays(floorDiv(upper, 86_400)).year + 1
                var rulePoints: [(at: Int64, after: ZoneOffset)] = []
                for year in firstYear...lastYear {
                    for change in footer.changes(in: year) where change.instant > from && change.instant <= upper {
                        rulePoints.append((change.instant, change.offset))
                    }
                }
                rulePoints.sort { $0.at < $1.at }
                points += rulePoints
            }
        }
        var changes: [OffsetChange] = []
        changes.reserveCapacity(points.count)
        var current = initial
        for p in points {
            changes.append(OffsetChange(at: p.at, before: current, after: p.after))
            current = p.after
        }
        return (initial, changes)
    }

    /// Every instant whose wall-clock reading in this zone is `wall`: none in a gap (spring forward,
    /// a skipped day), one usually, two in a fold (fall back), earlier first.
    ///
    /// 2026-03-08 02:30 in America/New_York → (nil, nil); 2026-11-01 01:30 → (05:30Z, 06:30Z);
    /// 2026-07-01 12:00 → (16:00Z, nil). O(log transitions). A wall time matched by three or more
    /// instants (no real zone has one) reports the first two.
    public func wallCandidates(_ wall: CivilDateTime) -> (first: Instant?, second: Instant?) {
        let c = candidates(wall)
        return c.count == 0 ? (nil, nil) : (c.first, c.second)
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
        let local = wall.localSeconds
        if c.count >= 2 {
            return WallResolution(kind: .fold, instant: c.first, offsetSeconds: c.firstOffset,
                                  laterInstant: c.second)
        }
        if c.count == 1 {
            return WallResolution(kind: .unique, instant: c.first, offsetSeconds: c.firstOffset, laterInstant: nil)
        }
        // A gap: the change whose skipped local span [at + before, at + after) holds the wall time.
        var before = c.initial.utcOffsetSeconds, after = before
        for change in c.changes.reversed() {
            let b = Int64(change.before.utcOffsetSeconds), a = Int64(change.after.utcOffsetSeconds)
            if a > b && change.at + b <= local && local < change.at + a {
                before = Int(b); after = Int(a)
                break
            }
        }
        return WallResolution(kind: .gap, instant: wall.instant(offsetSeconds: before), offsetSeconds: before,
                              laterInstant: wall.instant(offsetSeconds: after))
    }

    /// The instants whose wall-clock reading is `wall`, with the changes examined.
    private func candidates(_ wall: CivilDateTime)
        -> (count: Int, first: Instant, firstOffset: Int, second: Instant?, initial: ZoneOffset, changes: [OffsetChange])
    {
        let local = wall.localSeconds
        // Any candidate t = local - offset lies within this window because every offset does
        // (TZifParser.offsetRange; POSIX offsets are at most 24:59:59).
        let window = Int64(TZifParser.offsetRange.upperBound + 1)
        let lower = local - window, upper = local + window
        // Fast path: no change anywhere near the wall time.
        if footer == nil || upper < footerStart {
            let i = tableIndex(atSeconds: lower)
            if i == tableIndex(atSeconds: upper) {
                let o = offsets[i].utcOffsetSeconds
                return (1, wall.instant(offsetSeconds: o), o, nil, offsets[i], [])
            }
        } else if lower >= footerStart, let footer, footer.dst == nil {
            let o = footer.std.utcOffsetSeconds
            return (1, wall.instant(offsetSeconds: o), o, nil, footer.std, [])
        }
        let (initial, changes) = offsetChanges(from: lower, through: upper)
        func offsetAt(_ t: Int64) -> Int {
            var o = initial.utcOffsetSeconds
            for change in changes where change.at <= t { o = change.after.utcOffsetSeconds }
            return o
        }
        var found: [(t: Int64, offset: Int)] = []
        for o in [initial.utcOffsetSeconds] + changes.map(\.after.utcOffsetSeconds) {
            let t = local - Int64(o)
            if offsetAt(t) == o && !found.contains(where: { $0.t == t }) { found.append((t, o)) }
        }
        found.sort { $0.t < $1.t }
        let micro = Int64(wall.microsecond)
        guard let first = found.first else { return (0, Instant(microseconds: 0), 0, nil, initial, changes) }
        let second = found.count > 1 ? Instant(microseconds: found[1].t * 1_000_000 + micro) : nil
        return (found.count, Instant(microseconds: first.t * 1_000_000 + micro), first.offset, second, initial, changes)
    }
}
