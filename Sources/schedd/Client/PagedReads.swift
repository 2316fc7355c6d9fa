import ScheddBus
import Scheduler
import ScheddService
import ScheddBus

/// The CLI reads `list` and `history` page by page (CONTRACT §6 and §9): every reply stays bounded
/// (`ReplyBounds`), and the CLI keeps asking until the daemon says there is no next page.

/// Rows the CLI asks for per page: the daemon's own bound, so one page is one round trip.
private let rowsPerPage = UInt32(ReplyBounds.maxRows)

/// The pending schedules by next due, `offset` rows skipped and at most `limit` kept (every one when
/// nil), as the texts of the page arrays in order (`mergedJSONArray` joins them). The rows of a page
/// are counted only when `limit` needs it.
/// `allApps`: every app's (`ListAllAppsPage`, `list --all-apps`), else the caller's app's (`ListPage`).
func readPendingPages(_ client: SchedulerClient, offset: Int = 0, limit: Int? = nil,
                      allApps: Bool = false) throws(CommandFailure) -> [String] {
    let method = allApps ? "ListAllAppsPage" : "ListPage"
    var pages: [String] = []
    // The daemon skips the first `offset` rows itself (`+N`), then every page follows the previous one's cursor.
    var cursor = offset > 0 ? "+\(offset)" : "", remaining = limit ?? Int.max
    while remaining > 0 {
        let want = UInt32(min(Int(rowsPerPage), remaining))
        let after = cursor
        let (text, next) = try client.call(method, { m throws(BusError) in try m.append(after); try m.append(want) },
                                           read: { m throws(BusError) in (try m.readString(), try m.readString()) })
        pages.append(text)
        if limit != nil { remaining -= try SchedulerClient.json(text, method).arrayValue?.count ?? remaining }
        if next.isEmpty { break }
        cursor = next
    }
    return pages
}

/// How many schedules are pending — of the caller's app, or of every app with `allApps`
/// (`PendingCount` / `PendingCountAllApps`): one call whatever the number, so a footer can count every
/// pending schedule without reading them all.
func readPendingCount(_ client: SchedulerClient, allApps: Bool = false) throws(CommandFailure) -> Int {
    Int(try client.call(allApps ? "PendingCountAllApps" : "PendingCount", { _ throws(BusError) in },
                        read: { m throws(BusError) in try m.readUInt32() }))
}

/// The newest `limit` history records as page texts, oldest page first (each page oldest first).
func readHistoryPages(_ client: SchedulerClient, limit: Int) throws(CommandFailure) -> [String] {
    var newestFirst: [String] = []
    var before: UInt64 = 0, remaining = limit
    while remaining > 0 {
        let want = UInt32(min(Int(rowsPerPage), remaining)), bound = before
        let (text, next) = try client.call("HistoryPage", { m throws(BusError) in try m.append(bound); try m.append(want) },
                                           read: { m throws(BusError) in (try m.readString(), try m.readUInt64()) })
        newestFirst.append(text)
        if next == 0 { break }
        remaining -= try SchedulerClient.json(text, "HistoryPage").arrayValue?.count ?? remaining
        before = next
    }
    return newestFirst.reversed()
}

/// One JSON array holding the elements of `pages` (each a JSON array text) in order, without parsing them.
func mergedJSONArray(_ pages: [String]) -> String {
    var out = "["
    for page in pages {
        let inner = page.utf8.dropFirst().dropLast()
        guard inner.contains(where: { $0 != 0x20 }) else { continue }
        if out.utf8.count > 1 { out += "," }
        out += String(decoding: inner, as: UTF8.self)
    }
    return out + "]"
}
