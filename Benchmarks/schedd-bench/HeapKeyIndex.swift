import Scheduler

// The heap baseline's key → slab index: open addressing with linear probing and backward-shift
// deletion, 16-byte buckets, occupancy ≤ 3/4 — the same kind of dense-array table as the wheel's
// key table (and the same home-bucket rule), so the baseline pays what the wheel pays for a key
// lookup and no more (a SipHash `Dictionary` would make the heap look slower than it is).
struct HeapKeyIndex {
    private struct Bucket {
        var key: Int64
        var slot: Int32
        var used: Bool
    }
    private var buckets = [Bucket](repeating: Bucket(key: 0, slot: 0, used: false), count: 16)
    private var count = 0

    mutating func reserveCapacity(_ n: Int) {
        var size = 16
        while size * 3 < n * 4 { size *= 2 }
        if size > buckets.count { rehash(size) }
    }

    @inline(__always) private func home(_ key: Int64, mask: Int) -> Int {
        TimerWheelHome.home(of: key, mask: mask)
    }

    subscript(key: Int64) -> Int32? {
        get {
            let mask = buckets.count - 1
            var p = home(key, mask: mask)
            while buckets[p].used {
                if buckets[p].key == key { return buckets[p].slot }
                p = (p + 1) & mask
            }
            return nil
        }
        set {
            guard let slot = newValue else { _ = removeValue(forKey: key); return }
            if (count + 1) * 4 > buckets.count * 3 { rehash(buckets.count * 2) }
            let mask = buckets.count - 1
            var p = home(key, mask: mask)
            while buckets[p].used {
                if buckets[p].key == key { buckets[p].slot = slot; return }
                p = (p + 1) & mask
            }
            buckets[p] = Bucket(key: key, slot: slot, used: true)
            count += 1
        }
    }

    @discardableResult mutating func removeValue(forKey key: Int64) -> Int32? {
        let mask = buckets.count - 1
        var p = home(key, mask: mask)
        while buckets[p].used {
            if buckets[p].key == key {
                let slot = buckets[p].slot
                var hole = p, j = p
                while true {
                    j = (j + 1) & mask
                    guard buckets[j].used else { break }
                    let h = home(buckets[j].key, mask: mask)
                    let homeAfterHole = hole <= j ? (h > hole && h <= j) : (h > hole || h <= j)
                    if !homeAfterHole { buckets[hole] = buckets[j]; hole = j }
                }
                buckets[hole].used = false
                count -= 1
                return slot
            }
            p = (p + 1) & mask
        }
        return nil
    }

    private mutating func rehash(_ size: Int) {
        let old = buckets
        buckets = [Bucket](repeating: Bucket(key: 0, slot: 0, used: false), count: size)
        let mask = size - 1
        for b in old where b.used {
            var p = home(b.key, mask: mask)
            while buckets[p].used { p = (p + 1) & mask }
            buckets[p] = b
        }
    }
}
