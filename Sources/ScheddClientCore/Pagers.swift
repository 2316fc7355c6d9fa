/// The one pager of schedd's paged reads (CONTRACT §6 and §9: every reply bounded, the client asks
/// until the daemon says there is no next page), shared by ScheddClient's async calls and the
/// blocking client the CLI uses. A pager only says what to ask next; the caller makes the call.

/// `ListPage`/`ListAllAppsPage`: pending schedules by next due, `offset` rows skipped (the daemon
/// skips them itself, cursor `+N`), then at most `limit` rows (every one when nil).
package struct PendingPager: Sendable {
    /// Rows asked for per page: the daemon's own bound (ReplyBounds.maxRows), so a page is one round trip.
    package static let rowsPerPage = 1000
    private var cursor: String
    private var remaining: Int
    private var done = false
    /// Whether the caller must count the rows of each page (only when a limit needs it).
    package let countsRows: Bool

    package init(offset: Int = 0, limit: Int? = nil) {
        cursor = offset > 0 ? "+\(offset)" : ""
        remaining = limit ?? Int.max
        countsRows = limit != nil
    }

    /// The next call's `(after, limit)`, or nil when every wanted row was read.
    package var next: (after: String, limit: UInt32)? {
        guard !done, remaining > 0 else { return nil }
        return (cursor, UInt32(min(Self.rowsPerPage, remaining)))
    }

    /// Records a page: its row count (any value when `countsRows` is false) and the daemon's next cursor.
    package mutating func received(rows: Int, next: String) {
        if countsRows { remaining -= max(rows, 1) }
        if next.isEmpty { done = true } else { cursor = next }
    }
}

/// `HistoryPage`: the newest `limit` records (every one when nil), newest page first.
package struct HistoryPager: Sendable {
    private var before: UInt64 = 0
    private var remaining: Int
    private var done = false

    package init(limit: Int? = nil) { remaining = limit ?? Int.max }

    /// The next call's `(before, limit)`, or nil when done.
    package var next: (before: UInt64, limit: UInt32)? {
        guard !done, remaining > 0 else { return nil }
        return (before, UInt32(min(PendingPager.rowsPerPage, remaining)))
    }

    /// Records a page: its row count and the daemon's next cursor (0: no older page).
    package mutating func received(rows: Int, next: UInt64) {
        remaining -= max(rows, 1)
        if next == 0 || rows == 0 { done = true } else { before = next }
    }
}

/// One JSON array holding the elements of `pages` (each a JSON array text) in order, without parsing them.
public func mergedJSONArray(_ pages: [String]) -> String {
    var out = "["
    for page in pages {
        let inner = page.utf8.dropFirst().dropLast()
        guard inner.contains(where: { $0 != 0x20 }) else { continue }
        if out.utf8.count > 1 { out += "," }
        out += String(decoding: inner, as: UTF8.self)
    }
    return out + "]"
}

/// How many elements the JSON array `text` holds, counting its top-level commas without building it.
/// O(length). 0 for an empty array or a text that is not one.
package func jsonArrayCount(_ text: String) -> Int {
    var depth = 0, count = 0, inString = false, escaped = false, any = false
    for byte in text.utf8 {
        if inString {
            if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
            continue
        }
        switch byte {
        case 0x22: inString = true; if depth == 1 { any = true }
        case 0x5B, 0x7B: if depth == 1 { any = true }; depth += 1
        case 0x5D, 0x7D: depth -= 1
        case 0x2C: if depth == 1 { count += 1 }
        case 0x20, 0x09, 0x0A, 0x0D: break
        default: if depth == 1 { any = true }
        }
    }
    return any ? count + 1 : 0
}
