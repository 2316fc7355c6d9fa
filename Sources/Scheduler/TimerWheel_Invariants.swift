// Debug helpers checking the TimerWheel invariants documented on the type. O(n + buckets): used by
// tests after every step, never on a hot path.

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
        var handles = Set<UInt32>()
        for list in 0..<slots.count {
            if list < Self.overdueList {
                let bit = occupied[list >> 6] & (1 << UInt64(list & 63)) != 0
                if bit != !slots[list].isEmpty {
                    problems.append("occupied bit of list \(list) is \(bit) but it holds \(slots[list].count)")
                }
            }
            for (index, entry) in slots[list].enumerated() {
                seen += 1
                let expected = listIndex(ofTick: Self.tick(entry.due))
                if expected != list {
                    problems.append("key=\(entry.key) due=\(entry.due) is in list \(list), expected \(expected); elapsed=\(elapsed)")
                }
                if Int(entry.handle) >= position.count || position[Int(entry.handle)] != UInt32(index) {
                    problems.append("handle \(entry.handle) of key \(entry.key) is at \(index), position says otherwise")
                }
                if !handles.insert(entry.handle).inserted { problems.append("handle \(entry.handle) used twice") }
                if let p = tablePosition(of: entry.key) {
                    let b = table[p]
                    if b.due != entry.due || b.handle != entry.handle {
                        problems.append("key \(entry.key): bucket has due=\(b.due) handle=\(b.handle), slot has \(entry.due)/\(entry.handle)")
                    }
                    if b.isOverdue != (entry.due <= now.microseconds) {
                        problems.append("key \(entry.key) due=\(entry.due): overdue flag \(b.isOverdue) at now=\(now.microseconds)")
                    }
                } else {
                    problems.append("pending key \(entry.key) is not in the key table")
                }
                minimum = min(minimum ?? entry.due, entry.due)
            }
        }
        if seen != live { problems.append("slots hold \(seen) entries, count is \(live)") }
        var free = 0
        var h = freeHead
        while h != Self.noHandle && free <= position.count {
            if handles.contains(h) { problems.append("handle \(h) is both free and in use") }
            free += 1
            h = position[Int(h)]
        }
        if free + seen != position.count { problems.append("\(free) free + \(seen) used handles, \(position.count) exist") }
        let used = table.reduce(0) { $0 + ($1.isEmpty ? 0 : 1) }
        let liveBuckets = table.reduce(0) { $0 + (!$1.isEmpty && isLive($1) ? 1 : 0) }
        if used != tableUsed { problems.append("key table has \(used) non-empty buckets, tableUsed=\(tableUsed)") }
        if liveBuckets != live { problems.append("key table holds \(liveBuckets) live entries, count is \(live)") }
        if tableUsed * 4 > table.count * 3 { problems.append("key table occupancy \(tableUsed)/\(table.count) > 3/4") }
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
