/// What the rows an app leaves behind count against its byte quota (CONTRACT §8 "Quota", schema 9;
/// docs/store.md "Version 9"): the UTF-8 bytes of their texts, counted once for the row and again for
/// each index that repeats them, plus a fixed overhead for the numbers, the digest and the B-tree cells.
/// Each formula exists twice: as SQL over a row (the triggers keep the totals in the writing transaction)
/// and in Swift (the engine's estimate before it writes); `StoreKeptBytesTests` holds them equal.
///
/// | row | counts | kept in |
/// |---|---|---|
/// | finished record | 96 + 2 × id + title + message id + data | `pending_counts.kept` |
/// | applied digest | 96 + 2 × id | `pending_counts.kept` |
/// | tombstone | 32 + 2 × (app id + name) | `pending_counts.kept` |
/// | cancellation job | 64 + name + reason | `pending_counts.kept` |
/// | UnifiedPush replay window entry (schema 11) | 64 + 2 × digest (32) = 128 | `pending_counts.kept` |
/// | history record | 64 + 2 × app id + id + reason + title + message id + ran | `history_counts.bytes` |
/// | history data (a `payloads` row, shared by the app's records with that data) | 32 + data | `history_counts.bytes` |
enum StoreKeptBytes {
    static let finishedOverhead = 96, appliedOverhead = 96, tombstoneOverhead = 32, jobOverhead = 64
    static let historyOverhead = 64, payloadOverhead = 32, replayOverhead = 64

    /// `length` in bytes of a nullable text column, 0 when NULL.
    private static func len(_ column: String) -> String { "coalesce(length(CAST(\(column) AS BLOB)), 0)" }

    static func finishedSQL(_ p: String) -> String {
        "(\(finishedOverhead) + 2 * \(len(p + "id")) + \(len(p + "title")) + \(len(p + "message_id")) + \(len(p + "data")))"
    }
    static func appliedSQL(_ p: String) -> String { "(\(appliedOverhead) + 2 * \(len(p + "id")))" }
    static func tombstoneSQL(_ p: String) -> String { "(\(tombstoneOverhead) + 2 * (\(len(p + "app")) + \(len(p + "name"))))" }
    static func jobSQL(_ p: String) -> String { "(\(jobOverhead) + \(len(p + "name")) + \(len(p + "reason")))" }
    static func historySQL(_ p: String) -> String {
        "(\(historyOverhead) + 2 * \(len(p + "app")) + \(len(p + "id")) + \(len(p + "reason")) + \(len(p + "title"))"
            + " + \(len(p + "message_id")) + \(len(p + "ran")))"
    }
    /// A `push_replays` row: its digest is in the table and again in `push_replays_by_seq`.
    static func replaySQL(_ p: String) -> String { "(\(replayOverhead) + 2 * length(\(p)digest))" }
    /// A payload row (history data, shared by the app's records with the same data): counted once.
    static func payloadSQL(_ p: String) -> String { "(\(payloadOverhead) + \(len(p + "data")))" }

    static func finished(id: String, title: String?, messageId: String?, dataJSON: String?) -> Int {
        finishedOverhead + 2 * id.utf8.count + (title?.utf8.count ?? 0) + (messageId?.utf8.count ?? 0)
            + (dataJSON?.utf8.count ?? 0)
    }
    static func applied(id: String) -> Int { appliedOverhead + 2 * id.utf8.count }
    static func tombstone(app: String, name: String) -> Int { tombstoneOverhead + 2 * (app.utf8.count + name.utf8.count) }
    static func job(name: String, reason: String) -> Int { jobOverhead + name.utf8.count + reason.utf8.count }
    /// A record without its data (`payload` counts that, once per distinct data of the app).
    static func history(_ r: HistoryRecord) -> Int {
        historyOverhead + 2 * r.app.utf8.count + r.id.utf8.count + (r.reason?.utf8.count ?? 0) + (r.title?.utf8.count ?? 0)
            + (r.messageId?.utf8.count ?? 0) + (r.ran?.utf8.count ?? 0)
    }
    static func replay(digestBytes: Int) -> Int { replayOverhead + 2 * digestBytes }
    static func payload(_ data: String) -> Int { payloadOverhead + data.utf8.count }
}
