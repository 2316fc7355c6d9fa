import ScheddBus
import SchedCalendar
import Scheduler

/// `schedd list [--limit N] [--offset N] [--app ID | --all-apps]`: pending notifications, soonest first —
/// a table with the local time in each schedule's zone and how long until it is due by the daemon's
/// clock (with `--all-apps`, of every app, with an APP column). Read page by page (`ListPage`,
/// `ListAllAppsPage`), every page, however long the list.
func runListCommand(_ args: ParsedArguments) throws(CommandFailure) {
    let limit = UInt32(try args.count("limit", default: 0) ?? 0)
    let offset = UInt32(try args.count("offset", default: 0) ?? 0)
    let allApps = args.has("all-apps")
    if allApps && args.value("app") != nil { throw .usage("--all-apps and --app exclude each other") }
    let client = try SchedulerClient(args)
    let text = mergedJSONArray(try readPendingPages(client, offset: Int(offset), limit: limit == 0 ? nil : Int(limit),
                                                    allApps: allApps))
    if args.json {
        Console.out(text)
        return
    }
    let pending = try SchedulerClient.json(text, "List").arrayValue ?? []
    if pending.isEmpty {
        Console.out("No pending notifications.")
        return
    }
    let now = try daemonNow(client)
    var rows = [(allApps ? ["APP"] : []) + ["ID", "NEXT", "ZONE", "LEFT", "TITLE"]]
    for item in pending {
        let zoneName = item[member: "zone"]?.stringValue ?? "UTC"
        let nextText = item[member: "next"]?.stringValue ?? ""
        var when = nextText, left = ""
        if let next = instant(fromTimeText: nextText, in: .utc) {
            if let zone = try? Zones.named(zoneName) { when = systemdTimestamp(next, in: zone) }
            left = relativeToNow(next.microseconds - now.microseconds, future: "", past: "ago")
            left = next > now ? "in " + left.trimmingTrailingSpace() : left
        }
        rows.append((allApps ? [item[member: "app"]?.stringValue ?? ""] : [])
                    + [item[member: "id"]?.stringValue ?? "", when, zoneName, left, item[member: "title"]?.stringValue ?? ""])
    }
    Console.out(formatTable(rows))
    Console.out("\n\(pending.count) pending\(offset > 0 ? " (from #\(offset + 1))" : "").")
}

/// `schedd history [--limit N]`: the newest N records (default 100), oldest first, read page by page
/// (`HistoryPage`).
func runHistoryCommand(_ args: ParsedArguments) throws(CommandFailure) {
    let limit = try args.count("limit", default: 100) ?? 100
    guard limit > 0 else { throw .usage("--limit needs a positive integer") }
    let client = try SchedulerClient(args)
    let text = mergedJSONArray(try readHistoryPages(client, limit: limit))
    if args.json {
        Console.out(text)
        return
    }
    let records = try SchedulerClient.json(text, "History").arrayValue ?? []
    if records.isEmpty {
        Console.out("No history.")
        return
    }
    var rows = [["AT", "EVENT", "ID", "DUE", "LATE", "REASON"]]
    for r in records {
        let late = r[member: "late"]?.numberText.flatMap(Double.init).map { $0 == 0 ? "-" : "\(formatSeconds($0))" } ?? "-"
        rows.append([r[member: "at"]?.stringValue ?? "", r[member: "event"]?.stringValue ?? "",
                     r[member: "id"]?.stringValue ?? "", r[member: "due"]?.stringValue ?? "-", late,
                     r[member: "reason"]?.stringValue ?? "-"])
    }
    Console.out(formatTable(rows))
}

/// The daemon's clock (fake or real), for "in 2h 5min".
private func daemonNow(_ client: SchedulerClient) throws(CommandFailure) -> Instant {
    let text = try client.call("ClockShow", { _ throws(BusError) in }, read: { m throws(BusError) in try m.readString() })
    guard let now = try SchedulerClient.json(text, "ClockShow")[member: "now"]?.stringValue,
          let instant = instant(fromTimeText: now, in: .utc) else { throw .failure("malformed ClockShow reply") }
    return instant
}

private func formatSeconds(_ seconds: Double) -> String {
    formatRelativeSpan(microseconds: Int64((seconds * 1e6).rounded()))
}

/// Left-aligned columns separated by two spaces; the last column is not padded.
func formatTable(_ rows: [[String]]) -> String {
    guard let columns = rows.first?.count else { return "" }
    var widths = [Int](repeating: 0, count: columns)
    for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
    return rows.map { row in
        row.enumerated().map { i, cell in i == columns - 1 ? cell : cell.padding(to: widths[i]) }
            .joined(separator: "  ")
    }.joined(separator: "\n")
}

extension String {
    func trimmingTrailingSpace() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
