import SchedCalendar
import Scheduler

/// The bounds of one `ListPage`/`HistoryPage` reply (CONTRACT §9, "Bounded replies"; README, D-Bus API).
///
/// A stock system bus refuses messages over 32 MiB and a session bus may be configured lower; a reply
/// that large would also stall the loop while it is built. So a page holds at most `maxRows` rows and
/// at most `maxBytes` bytes of JSON: rows are added while the next one still fits, and a page holds at
/// least one row (a row is at most about 40 KiB: a 16 KiB `data`, a 1 KiB title, 32 cancelOn names).
/// Both limits are far below 32 MiB, so a page always fits a message on any stock bus.
public enum ReplyBounds {
    /// Rows per page at most; a client asking for more (or 0, "as many as fit") gets at most this many.
    public static let maxRows = 1000
    /// Bytes of the JSON array per page at most (1 MiB).
    public static let maxBytes = 1 << 20
}

/// How many of `rows` (serialized JSON values), from the first, fit one page: at most `maxRows`, and
/// as one JSON array at most `maxBytes` bytes. At least one when `rows` is not empty. O(rows taken).
public func rowsFittingOnePage(_ rows: some Collection<String>, maxRows: Int = ReplyBounds.maxRows,
                        maxBytes: Int = ReplyBounds.maxBytes) -> Int {
    var bytes = 2  // "[" and "]"
    var count = 0
    for row in rows.prefix(maxRows) {
        let added = row.utf8.count + (count == 0 ? 0 : 1)  // the row and the "," before it
        if count > 0 && bytes + added > maxBytes { break }
        bytes += added
        count += 1
    }
    return count
}

/// `rows` as one JSON array.
public func jsonArray(_ rows: some Sequence<String>) -> String { "[" + rows.joined(separator: ",") + "]" }

/// Where a `ListPage` starts.
public enum ListStart: Sendable, Equatable {
    /// The first row.
    case first
    /// Just after the row with this cursor (the `next` of a previous page).
    case after(PendingCursor)
    /// After skipping this many rows (`+N`): O(N) once, for a client that asked for a row number.
    case skipping(Int)
}

/// The text of a `ListPage` cursor: `v2:` and 40 hex digits, the position (next due, store key) of the
/// last row of the previous page sealed for the app (`PagingSeal`: opaque, per app, good for one daemon
/// run; it says nothing of other apps' rows). Clients treat it as opaque and pass it back as it came; the
/// version prefix lets the order change without breaking a client. `after` may also be `""` (from the
/// first row) or `+N` (after skipping N rows, as `schedd list --offset N` asks).
public enum ListCursorText {
    public static func encode(_ cursor: PendingCursor, seal: PagingSeal, app: String?) -> String { seal.seal(cursor, app: app) }

    /// The cursor of `text`; nil for "" (the first page); throws for anything that is not a cursor of `app`.
    public static func decode(_ text: String, seal: PagingSeal, app: String?) throws(ArgumentRejection) -> PendingCursor? {
        switch try start(text, seal: seal, app: app) {
        case .first: return nil
        case .after(let cursor): return cursor
        case .skipping: throw rejection(text)
        }
    }

    /// Where a page of `app` (nil: every app's) whose `after` is `text` starts.
    public static func start(_ text: String, seal: PagingSeal, app: String?) throws(ArgumentRejection) -> ListStart {
        if text.isEmpty { return .first }
        let digits = text.utf8.dropFirst()
        if text.hasPrefix("+"), (1...10).contains(digits.count), digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
           let skip = Int(text.dropFirst()) {
            return .skipping(skip)
        }
        guard let cursor = seal.open(list: text, app: app) else { throw rejection(text) }
        return .after(cursor)
    }

    private static func rejection(_ text: String) -> ArgumentRejection {
        let shown = text.utf8.count > 64 ? String(decoding: Array(text.utf8.prefix(64)), as: UTF8.self) + "…" : text
        return ArgumentRejection("ListPage: after must be \"\" (the first page), +N (after N rows) or the next "
                                 + "cursor of a previous ListPage reply to the same app (cursors are per app and "
                                 + "per daemon run), not '\(shown)'")
    }
}
