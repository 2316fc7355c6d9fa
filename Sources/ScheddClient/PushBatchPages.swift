/// The caps of one `PushBatch` call, as the daemon enforces them (ScheddService `CallCaps`; README,
/// "Limits"): over either the daemon refuses the whole call with InvalidArgument.
public enum PushBatchLimits {
    /// Pushes per call at most.
    public static let maxEntries = 10_000
    /// Bytes of the pushes' JSON text per call at most (UTF-8, 8 MiB).
    public static let maxBytes = 8 << 20
}

/// Splits `sizes` (the UTF-8 byte counts of the pushes, in order) into consecutive ranges that each
/// hold at most `maxEntries` pushes and at most `maxBytes` bytes in all; a push larger than `maxBytes`
/// on its own gets a range of its own (the daemon answers it). Every index is in exactly one range, in
/// order. O(n). ScheddClient's one batch splitter.
public func pushBatchPages(sizes: [Int], maxEntries: Int = PushBatchLimits.maxEntries,
                           maxBytes: Int = PushBatchLimits.maxBytes) -> [Range<Int>] {
    precondition(maxEntries > 0 && maxBytes > 0, "a page holds at least one push")
    var pages: [Range<Int>] = []
    var start = 0, bytes = 0
    for (i, size) in sizes.enumerated() {
        if i > start && (i - start == maxEntries || bytes + size > maxBytes) {
            pages.append(start..<i)
            start = i
            bytes = 0
        }
        bytes += size
    }
    if start < sizes.count { pages.append(start..<sizes.count) }
    return pages
}
