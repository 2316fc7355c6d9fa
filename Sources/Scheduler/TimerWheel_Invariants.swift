// Debug helpers checking the TimerWheel invariants documented on the type. O(n): used by tests
// after every step, never on a hot path.

extension TimerWheel {
    /// Every violated invariant, as a message naming the values involved (empty when consistent).
    /// Used for debug assertions and property tests.
    func invariantViolations() -> [String] {
        var problems: [String] = []
        if elapsed != Self.tick(now.microseconds) {
            problems.append("elapsed=\(elapsed) but tick(now)=\(Self.tick(now.microseconds)); now=\(now.microseconds)")
        }
        var seen = 0
        var minimum: Int64?
        for list in 0..<heads.count {
            if list < Self.overdueList {
                let bit = occupied[list >> 6] & (1 << UInt64(list & 63)) != 0
                if bit != (heads[list] != Self.none) {
                    problems.append("occupied bit of list \(list) is \(bit) but head=\(heads[list])")
                }
            }
            var previous = Self.none
            var i = heads[list]
            while i != Self.none {
                seen += 1
                if seen > slab.count {
                    problems.append("cycle in list \(list)")
                    return problems
                }
                let d = slab[Int(i)].due
                let expected = listIndex(ofTick: Self.tick(d))
                if expected != list {
                    problems.append("entry \(i) key=\(slab[Int(i)].key) due=\(d) is in list \(list), expected \(expected); elapsed=\(elapsed)")
                }
                if slab[Int(i)].prev != previous {
                    problems.append("entry \(i) prev=\(slab[Int(i)].prev), expected \(previous)")
                }
                if tableFind(slab[Int(i)].key) != i {
                    problems.append("key \(slab[Int(i)].key) maps to \(String(describing: tableFind(slab[Int(i)].key))), not \(i)")
                }
                minimum = min(minimum ?? d, d)
                previous = i
                i = slab[Int(i)].next
            }
        }
        if seen != live { problems.append("lists hold \(seen) entries, count is \(live)") }
        let indexed = table.reduce(0) { $0 + ($1 == Self.emptyBucket ? 0 : 1) }
        if indexed != live { problems.append("key table holds \(indexed) entries, count is \(live)") }
        if minimum != cachedNext {
            problems.append("cachedNext=\(String(describing: cachedNext)), minimum due=\(String(describing: minimum))")
        }
        return problems
    }

    /// Asserts (debug builds only) that the invariants hold.
    func assertInvariants(file: StaticString = #file, line: UInt = #line) {
        assert(invariantViolations().isEmpty, "\(invariantViolations())", file: file, line: line)
    }
}
