import SchedCalendar
import Scheduler

/// The service's paged read methods (CONTRACT §6 and §9; README, D-Bus API): `ListPage`, `HistoryPage`, and the
/// v1 `List`/`History`, which answer from one bounded page and fail rather than truncate.
extension Service {
    /// `ListPage(s after, u limit) → (s pending, s next)`: at most `limit` pending schedules (0 or more
    /// than `ReplyBounds.maxRows`: that many) after cursor `after` ("" = from the first, `+N` = after N
    /// rows, O(N) once), by next due,
    /// cut to `ReplyBounds.maxBytes`; `next` is the cursor of the following page, "" after the last,
    /// sealed for `app` (`PagingSeal`: it reveals nothing of other apps' rows).
    /// One keyset seek: the cost does not grow with the page's depth.
    /// Of `app` (nil: of every app, `ListAllAppsPage`).
    func listPage(app: String?, after text: String, limit: UInt32) throws(ServiceFailure) -> (pending: String, next: String) {
        let start = try ServiceFailure.rejecting { () throws(ArgumentRejection) in
            try ListCursorText.start(text, seal: pagingSeal, app: app)
        }
        let rows = Self.pageRows(limit)
        // One row more than fits says whether another page follows.
        let found = try engineCall { _ throws(EngineError) in
            switch start {
            case .first: try engine().listPage(app: app, after: nil, limit: rows + 1)
            case .after(let cursor): try engine().listPage(app: app, after: cursor, limit: rows + 1)
            case .skipping(let offset): try engine().listPage(app: app, skipping: offset, limit: rows + 1)
            }
        }
        let serialized = found.prefix(rows).map { JSONValue(pending: $0.schedule).serialized() }
        let count = rowsFittingOnePage(serialized)
        let more = count < found.count
        return (jsonArray(serialized.prefix(count)),
                more ? ListCursorText.encode(found[count - 1].cursor, seal: pagingSeal, app: app) : "")
    }

    /// `HistoryPage(t before, u limit) → (s records, t next)`: at most `limit` records (bounded as for
    /// `ListPage`) older than position `before` (0 = the newest), printed oldest first; `next` is
    /// the `before` of the page of older records, 0 when there are none. Positions are sequence numbers
    /// sealed for `app` (`PagingSeal`): opaque, per app, good for one daemon run; another is refused.
    /// One seek on the sequence. Of `app`.
    func historyPage(app: String?, before: UInt64, limit: UInt32) throws(ServiceFailure) -> (records: String, next: UInt64) {
        let rows = Self.pageRows(limit)
        var bound: Int64?
        if before != 0 {
            guard let seq = pagingSeal.open(history: before, app: app) else {
                throw ServiceFailure(.invalidArgument, "HistoryPage: before must be 0 (the newest) or the next of a previous "
                                     + "HistoryPage reply to the same app (positions are per app and per daemon run), not \(before)")
            }
            bound = seq
        }
        let found = try engineCall { _ throws(EngineError) in try engine().historyPage(app: app, before: bound, limit: rows + 1) }
        // Newest first from the store: keep the newest that fit, then print them oldest first.
        let serialized = found.prefix(rows).map { JSONValue(history: $0.record).serialized() }
        let count = rowsFittingOnePage(serialized)
        let more = count < found.count
        return (jsonArray(serialized.prefix(count).reversed()),
                more ? pagingSeal.seal(history: found[count - 1].seq, app: app) : 0)
    }

    /// v1 `List(u limit, u offset) → s`: as before when the answer fits one page; else an error that
    /// names the bound and `ListPage`, never a truncated list. O(offset + limit), so kept for old clients.
    func legacyList(app: String, limit: UInt32, offset: UInt32) throws(ServiceFailure) -> String {
        let rows = limit == 0 ? ReplyBounds.maxRows + 1 : min(Int(limit), ReplyBounds.maxRows + 1)
        let found = try engineCall { _ throws(EngineError) in try engine().list(app: app, limit: rows, offset: Int(offset)) }
        let serialized = found.map { JSONValue(pending: $0).serialized() }
        guard rowsFittingOnePage(serialized) == found.count else { throw Self.tooLarge("List", instead: "ListPage") }
        return jsonArray(serialized)
    }

    /// v1 `History(u limit) → s`: the newest `limit` records (0: all), oldest first, when they fit one
    /// page; else an error naming the bound and `HistoryPage`.
    func legacyHistory(app: String, limit: UInt32) throws(ServiceFailure) -> String {
        let wanted = limit == 0 ? Int.max : Int(limit)  // 0 = all, as for List and the CLI's --limit 0
        let rows = min(wanted, ReplyBounds.maxRows + 1)
        let found = try engineCall { _ throws(EngineError) in try engine().history(app: app, limit: rows) }
        let serialized = found.map { JSONValue(history: $0).serialized() }
        guard rowsFittingOnePage(serialized) == found.count else { throw Self.tooLarge("History", instead: "HistoryPage") }
        return jsonArray(serialized)
    }

    private static func pageRows(_ limit: UInt32) -> Int {
        limit == 0 ? ReplyBounds.maxRows : min(Int(limit), ReplyBounds.maxRows)
    }

    private static func tooLarge(_ method: String, instead: String) -> ServiceFailure {
        ServiceFailure(.invalidArgument, "\(method): the answer exceeds one reply (at most \(ReplyBounds.maxRows) rows "
                       + "and \(ReplyBounds.maxBytes) bytes); read it in pages with \(instead)")
    }
}
