import ScheddClientCore
import ScheddBus
import SchedCalendar
import ScheddService
import Scheduler

/// `schedd list [--limit N] [--offset N] [--app ID | --all-apps]`: pending notifications of the app,
/// soonest first (`--all-apps`: of every app, `ListAllAppsPage`, with an APP column).
///
/// JSON: the daemon's `List` page as it is. Human: a table like `systemctl list-timers` — NEXT and
/// LEFT (by the daemon's clock), LAST and PASSED (a repeating schedule's latest occurrence, the
/// rows' `last`; `n/a` before the first), REPEAT (a repeating schedule's calendar expression,
/// `-` for a one-shot), ID, TITLE — with times in the daemon's device zone, columns aligned by
/// display width (CJK titles take two columns a character), and a footer counting every pending
/// schedule, not only the rows shown (`Showing 1 of 3 pending.`, from `PendingCount`). Only the rows
/// shown are read, page by page (`ListPage`); `--limit 0` reads every page, however long the list.
func runListCommand(_ args: ParsedArguments) throws(CommandFailure) {
    let limit = try args.count("limit", default: 0) ?? 0
    let offset = try args.count("offset", default: 0) ?? 0
    let allApps = args.has("all-apps")
    if allApps && args.value("app") != nil { throw .usage("--all-apps and --app exclude each other") }
    let client = try DaemonSession(args)
    if args.json {
        Console.out(mergedJSONArray(try client.pendingPages(offset: offset, limit: limit == 0 ? nil : limit, allApps: allApps)))
        return
    }
    // Only the rows shown are read; the footer's total is one PendingCount call, so `list --limit 20`
    // costs the same with 20 or a million pending.
    let shown = try DaemonSession.json(mergedJSONArray(try client.pendingPages(offset: offset,
                                                                                 limit: limit == 0 ? nil : limit,
                                                                                 allApps: allApps)), "List").arrayValue ?? []
    let total = try client.pendingCount(allApps: allApps)
    // Snoozed notifications are in no pending list; they are shown with the first page, marked.
    let snoozed = offset == 0 ? try DaemonSession.json(try client.snoozed(allApps: allApps), "Snoozed").arrayValue ?? [] : []
    let hidden = allApps ? "" : otherAppsNote(client, pending: total, snoozed: snoozed.count)
    if total == 0 && shown.isEmpty && snoozed.isEmpty {
        Console.out("No pending notifications." + (hidden.isEmpty ? "" : "\n" + hidden))
        return
    }
    let clock = try DaemonClock.read(client)
    func left(_ instant: Instant) -> String {
        let delta = instant.microseconds - clock.now.microseconds
        return delta >= 0 ? formatRelativeSpan(microseconds: delta) : relativeToNow(delta)
    }
    var timed: [(at: Int64, cells: [String])] = []
    for item in shown {
        let id = item[member: "id"]?.stringValue ?? ""
        var next = "n/a", leftText = "n/a", lastText = "n/a", passed = "n/a", at = Int64.max
        if let text = item[member: "next"]?.stringValue, let instant = instant(fromTimeText: text, in: .utc) {
            next = clock.local(instant)
            leftText = left(instant)
            at = instant.microseconds
        }
        if let text = item[member: "last"]?.stringValue, let fired = instant(fromTimeText: text, in: .utc) {
            lastText = clock.local(fired)
            passed = relativeToNow(fired.microseconds - clock.now.microseconds)
        }
        let trigger = item[member: "trigger"]?.stringValue ?? ""
        let repeats = trigger.hasPrefix("calendar ") ? String(trigger.dropFirst("calendar ".count)) : "-"
        timed.append((at, (allApps ? [tableCell(item[member: "app"]?.stringValue ?? "")] : [])
                      + [next, leftText, lastText, passed, tableCell(repeats), tableCell(id),
                         tableCell(item[member: "title"]?.stringValue ?? "")]))
    }
    // A snoozed one: NEXT is when it comes back, LAST the occurrence that was snoozed, REPEAT says so.
    for item in snoozed {
        guard let until = item[member: "until"]?.stringValue.flatMap({ instant(fromTimeText: $0, in: .utc) }) else { continue }
        let due = item[member: "due"]?.stringValue.flatMap { instant(fromTimeText: $0, in: .utc) }
        timed.append((until.microseconds, (allApps ? [tableCell(item[member: "app"]?.stringValue ?? "")] : [])
                      + [clock.local(until), left(until), due.map(clock.local) ?? "n/a",
                         due.map { relativeToNow($0.microseconds - clock.now.microseconds) } ?? "n/a", "(snoozed)",
                         tableCell(item[member: "id"]?.stringValue ?? ""), tableCell(item[member: "title"]?.stringValue ?? "")]))
    }
    // Stable: pending rows keep the daemon's order among equal times, snoozed ones follow them.
    let ordered = timed.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element.cells)
    Console.out(formatTable([(allApps ? ["APP"] : []) + ["NEXT", "LEFT", "LAST", "PASSED", "REPEAT", "ID", "TITLE"]] + ordered))
    // The count and the rows are two reads: a push in between can make them disagree by that push,
    // never more; the footer then still names both numbers as read.
    let alsoSnoozed = snoozed.isEmpty ? "" : ", \(snoozed.count) snoozed"
    if shown.count == total && offset == 0 {
        Console.out("\n\(total) pending\(alsoSnoozed).")
    } else if shown.isEmpty {
        Console.out("\nNone shown of \(total) pending (from #\(offset + 1))\(alsoSnoozed).")
    } else {
        Console.out("\nShowing \(shown.count) of \(total) pending" + (offset > 0 ? " (from #\(offset + 1))" : "") + alsoSnoozed + ".")
    }
    if !hidden.isEmpty { Console.out(hidden) }
}

/// The footer line saying that other apps have items `list` did not show (`list --all-apps` shows
/// them), or "" when they have none or the caller may not know (a sandboxed app: AccessDenied).
private func otherAppsNote(_ client: DaemonSession, pending: Int, snoozed: Int) -> String {
    guard let all = client.ifAllowed({ () throws(CommandFailure) in try client.pendingCount(allApps: true) }) else { return "" }
    let allSnoozed = client.ifAllowed { () throws(CommandFailure) in
        try DaemonSession.json(try client.snoozed(allApps: true), "SnoozedAllApps").arrayValue?.count ?? 0
    } ?? snoozed
    let (otherPending, otherSnoozed) = (max(0, all - pending), max(0, allSnoozed - snoozed))
    guard otherPending + otherSnoozed > 0 else { return "" }
    let what = [otherPending > 0 ? "\(otherPending) pending" : nil, otherSnoozed > 0 ? "\(otherSnoozed) snoozed" : nil]
        .compactMap { $0 }.joined(separator: " and ")
    return "Other apps have \(what), not shown: schedd list --all-apps shows them."
}

/// `schedd history [--limit N] [--app ID | --all-apps]`: the newest N records (default 100; 0: all),
/// oldest first; `--all-apps` of every app (`HistoryAllAppsPage`) with an APP column. Human: TIME and
/// DUE in the daemon's device zone, EVENT, ID, TITLE, LATE (`0s` when on time) and REASON, and a
/// footer when other apps have records among the newest N that were not shown. Read page by page.
func runHistoryCommand(_ args: ParsedArguments) throws(CommandFailure) {
    let limit = try args.count("limit", default: 100) ?? 100
    let allApps = args.has("all-apps")
    if allApps && args.value("app") != nil { throw .usage("--all-apps and --app exclude each other") }
    let client = try DaemonSession(args)
    let text = mergedJSONArray(try client.historyPages(limit: limit == 0 ? nil : limit, allApps: allApps))
    if args.json {
        Console.out(text)
        return
    }
    let records = try DaemonSession.json(text, "History").arrayValue ?? []
    let hidden = allApps ? "" : otherAppsHistoryNote(client, args, window: limit == 0 ? PendingWindow.rows : min(limit, PendingWindow.rows))
    if records.isEmpty {
        Console.out("No history." + (hidden.isEmpty ? "" : "\n" + hidden))
        return
    }
    let clock = try DaemonClock.read(client)
    func local(_ member: String, of record: JSONValue) -> String {
        guard let text = record[member: member]?.stringValue else { return "-" }
        return instant(fromTimeText: text, in: .utc).map(clock.local) ?? text
    }
    var rows = [(allApps ? ["APP"] : []) + ["TIME", "EVENT", "ID", "TITLE", "DUE", "LATE", "REASON"]]
    for r in records {
        var late = "-"
        if let seconds = r[member: "late"]?.numberText.flatMap(Double.init), seconds >= 0 {
            let micro = UInt64((seconds * 1e6).rounded())
            late = micro == 0 ? "0s" : TimeSpan.format(micro, accuracy: 1000)
        }
        rows.append((allApps ? [tableCell(r[member: "app"]?.stringValue ?? "")] : []) + [local("at", of: r), r[member: "event"]?.stringValue ?? "", tableCell(r[member: "id"]?.stringValue ?? ""),
                     tableCell(r[member: "title"]?.stringValue ?? "-"), local("due", of: r), late,
                     tableCell(r[member: "reason"]?.stringValue ?? "-")])
    }
    Console.out(formatTable(rows))
    if !hidden.isEmpty { Console.out("\n" + hidden) }
}

/// How many of every app's newest records `history` looks at for its footer: one page.
private enum PendingWindow { static let rows = 1000 }

/// The footer line saying that other apps have records among the newest `window` of every app
/// (`history --all-apps` shows them), or "" when none or the caller may not know (sandboxed).
private func otherAppsHistoryNote(_ client: DaemonSession, _ args: ParsedArguments, window: Int) -> String {
    guard window > 0,
          let identity = client.ifAllowed({ () throws(CommandFailure) in
              try DaemonSession.json(try client.string("DeclareApp", { m throws(BusError) in try m.append(args.value("app") ?? "") }),
                                     "DeclareApp") }),
          let own = identity[member: "app"]?.stringValue,
          let page = client.ifAllowed({ () throws(CommandFailure) in
              try DaemonSession.json(mergedJSONArray(try client.historyPages(limit: window, allApps: true)), "HistoryAllAppsPage") })
    else { return "" }
    let others = (page.arrayValue ?? []).filter { $0[member: "app"]?.stringValue != own }.count
    guard others > 0 else { return "" }
    return "Other apps have \(others) record\(others == 1 ? "" : "s") among the newest \(window), not shown: "
        + "schedd history --all-apps shows them."
}
