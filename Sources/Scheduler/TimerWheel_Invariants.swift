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
        var pending = 0, cancelledSeen = 0
        var minimum: Int64?
        var handles = Set<UInt32>()
        for list in 0..<slots.count {
            if list < Self.overdueList {
                let bit = occupied[list >> 6] & (1 << UInt64(list & 63)) != 0
                if bit != !slots[list].isEmpty {
                    problems.append("occupied bit of list \(list) is \(bit) but it holds \(slots[list].count)")
                }
            }
            let cancelledHere = slots[list].filter { Int($0.handle) < handleCount && isCancelled($0.handle) }.count
            if cancelledHere != Int(cancelledIn[list]) {
                problems.append("list \(list) holds \(cancelledHere) cancelled entries, cancelledIn says \(cancelledIn[list])")
            }
            for entry in slots[list] {
                let expected = listIndex(ofTick: Self.tick(entry.due))
                if expected != list {
                    problems.append("handle \(entry.handle) due=\(entry.due) is in list \(list), expected \(expected); elapsed=\(elapsed)")
                }
                guard Int(entry.handle) < handleCount else {
                    problems.append("handle \(entry.handle) is beyond the \(handleCount) handles"); continue
                }
                if !handles.insert(entry.handle).inserted { problems.append("handle \(entry.handle) used twice") }
                if wideKeys[entry.handle] != (Self.isWide(entry.key) ? entry.key : nil) {
                    problems.append("handle \(entry.handle) of key \(entry.key) has wide key \(String(describing: wideKeys[entry.handle]))")
                }
                if isCancelled(entry.handle) {
                    cancelledSeen += 1
                    continue
                }
                pending += 1
                let key = entry.key
                if let p = tablePosition(of: key) {
                    let b = table[p]
                    if b.due != entry.due || b.handle != entry.handle {
                        problems.append("key \(key): bucket has due=\(b.due) handle=\(b.handle), slot has \(entry.due)/\(entry.handle)")
                    }
                    if b.isOverdue != (entry.due <= now.microseconds) {
                        problems.append("key \(key) due=\(entry.due): overdue flag \(b.isOverdue) at now=\(now.microseconds)")
                    }
                } else {
                    problems.append("pending key \(key) is not in the key table")
                }
                minimum = min(minimum ?? entry.due, entry.due)
            }
        }
        if pending != live { problems.append("slots hold \(pending) pending entries, count is \(live)") }
        let flagged = cancelled.reduce(0) { $0 + $1.nonzeroBitCount }
        if cancelledSeen != cancelledCount || flagged != cancelledCount {
            problems.append("\(cancelledSeen) cancelled entries placed, \(flagged) flagged, cancelledCount=\(cancelledCount)")
        }
        if cancelledCount > live / 2 + Self.sweepSlack {
            problems.append("\(cancelledCount) cancelled entries kept for \(live) pending: a sweep is due")
        }
        if cancelled.count * 64 < handleCount { problems.append("the cancelled bitmap covers fewer than \(handleCount) handles") }
        if wideKeys.count > handles.count || wideKeys.keys.contains(where: { !handles.contains($0) }) {
            problems.append("wideKeys holds handles not in use: \(wideKeys.keys.filter { !handles.contains($0) })")
        }
        var free = Set<UInt32>()
        for h in freeHandles {
            if !free.insert(h).inserted { problems.append("handle \(h) is free twice") }
            if handles.contains(h) { problems.append("handle \(h) is both free and in use") }
            if Int(h) < handleCount, isCancelled(h) { problems.append("free handle \(h) is flagged cancelled") }
        }
        if free.count + handles.count != handleCount {
            problems.append("\(free.count) free + \(handles.count) used handles, \(handleCount) exist")
        }
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
