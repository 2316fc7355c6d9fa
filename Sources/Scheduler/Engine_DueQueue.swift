import SchedCalendar

/// The entries one `Engine.advance` still has to decide, by (due, key): a binary min-heap, so an occurrence
/// produced on the way (a calendar due again within the span) goes back in O(log n) instead of a linear
/// insert into a sorted array (which made `clock advance` over many calendars O(n) per firing).
struct DueQueue {
    private(set) var elements: [(key: Int64, due: Instant)]

    /// From entries already in ascending (due, key) order (what `TimerWheel.advance` returns): a valid heap.
    init(ascending: [(key: Int64, due: Instant)]) { elements = ascending }

    var isEmpty: Bool { elements.isEmpty }
    var first: (key: Int64, due: Instant)? { elements.first }

    @inline(__always) private static func less(_ a: (key: Int64, due: Instant), _ b: (key: Int64, due: Instant)) -> Bool {
        a.due != b.due ? a.due < b.due : a.key < b.key
    }

    /// O(log n).
    mutating func push(_ entry: (key: Int64, due: Instant)) {
        elements.append(entry)
        var i = elements.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard Self.less(elements[i], elements[parent]) else { break }
            elements.swapAt(i, parent)
            i = parent
        }
    }

    /// The earliest entry, removed. O(log n).
    mutating func popFirst() -> (key: Int64, due: Instant)? {
        guard !elements.isEmpty else { return nil }
        elements.swapAt(0, elements.count - 1)
        let top = elements.removeLast()
        var i = 0
        let n = elements.count
        while true {
            let l = 2 * i + 1, r = l + 1
            var smallest = i
            if l < n && Self.less(elements[l], elements[smallest]) { smallest = l }
            if r < n && Self.less(elements[r], elements[smallest]) { smallest = r }
            if smallest == i { break }
            elements.swapAt(i, smallest)
            i = smallest
        }
        return top
    }
}
