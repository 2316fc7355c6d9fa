// Baseline for `schedd-bench wheel`: the textbook timer queue, a binary min-heap.

/// A binary min-heap timer queue ordered by (due, key), with the same API shape as `TimerWheel`.
///
/// A fair baseline, not a strawman: the heap array holds 16-byte nodes with the due inline (so
/// sifting compares without an indirection; the key is looked up only to break a tie), entries
/// live in a struct-of-arrays slab (free list), each entry records its heap position (so cancel
/// and re-insert are O(log n) with no search), and a `HeapKeyIndex` (an open-addressing table like
/// the wheel's key table, not a SipHash `Dictionary`) maps key → slab index. Insert
/// and cancel are O(log n); `nextExpiry` is O(1) (the root); expiring one timer is O(log n).
struct HeapTimerQueue {
    struct Node {
        var due: Int64
        var slot: Int32
    }
    private var keys: [Int64] = []
    private var dues: [Int64] = []
    private var position: [Int32] = []
    private var heap: [Node] = []
    private var index = HeapKeyIndex()
    private var freeList: [Int32] = []

    var count: Int { heap.count }

    var nextExpiry: Int64? { heap.first?.due }

    mutating func reserveCapacity(_ n: Int) { index.reserveCapacity(n) }

    mutating func insert(key: Int64, due: Int64) {
        if let i = index[key] {
            dues[Int(i)] = due
            let p = Int(position[Int(i)])
            heap[p].due = due
            siftUp(p)
            siftDown(Int(position[Int(i)]))
            return
        }
        let i: Int32
        if let reused = freeList.popLast() {
            i = reused
            keys[Int(i)] = key
            dues[Int(i)] = due
        } else {
            i = Int32(keys.count)
            keys.append(key)
            dues.append(due)
            position.append(0)
        }
        index[key] = i
        heap.append(Node(due: due, slot: i))
        position[Int(i)] = Int32(heap.count - 1)
        siftUp(heap.count - 1)
    }

    @discardableResult mutating func cancel(key: Int64) -> Bool {
        guard let i = index.removeValue(forKey: key) else { return false }
        remove(at: Int(position[Int(i)]))
        freeList.append(i)
        return true
    }

    /// Pops every timer due at or before `t`, in (due, key) order.
    mutating func advance(to t: Int64, _ body: (Int64, Int64) -> Void) {
        while let node = heap.first, node.due <= t {
            let top = node.slot
            let key = keys[Int(top)], due = node.due
            index.removeValue(forKey: key)
            remove(at: 0)
            freeList.append(top)
            body(key, due)
        }
    }

    private mutating func remove(at p: Int) {
        let last = heap.removeLast()
        guard p < heap.count else { return }
        heap[p] = last
        position[Int(last.slot)] = Int32(p)
        siftUp(p)
        siftDown(Int(position[Int(last.slot)]))
    }

    @inline(__always) private func less(_ a: Node, _ b: Node) -> Bool {
        a.due != b.due ? a.due < b.due : keys[Int(a.slot)] < keys[Int(b.slot)]
    }

    private mutating func siftUp(_ start: Int) {
        var p = start
        let x = heap[p]
        while p > 0 {
            let parent = (p - 1) / 2
            let y = heap[parent]
            if !less(x, y) { break }
            heap[p] = y
            position[Int(y.slot)] = Int32(p)
            p = parent
        }
        heap[p] = x
        position[Int(x.slot)] = Int32(p)
    }

    private mutating func siftDown(_ start: Int) {
        var p = start
        let x = heap[p]
        let n = heap.count
        while true {
            var child = 2 * p + 1
            if child >= n { break }
            if child + 1 < n && less(heap[child + 1], heap[child]) { child += 1 }
            let y = heap[child]
            if !less(y, x) { break }
            heap[p] = y
            position[Int(y.slot)] = Int32(p)
            p = child
        }
        heap[p] = x
        position[Int(x.slot)] = Int32(p)
    }
}
