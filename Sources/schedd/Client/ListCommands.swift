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
    if total == 0 && shown.isEmpty {
        Console.out("No pending notifications.")
        return
    }
    let clock = try DaemonClock.read(client)
    var rows = [(allApps ? ["APP"] : []) + ["NEXT", "LEFT", "LAST", "PASSED", "REPEAT", "ID", "TITLE"]]
    for item in shown {
        let id = item[member: "id"]?.stringValue ?? ""
        var next = "n/a", left = "n/a", lastText = "n/a", passed = "n/a"
        if let text = item[member: "next"]?.stringValue, let instant = instant(fromTimeText: text, in: .utc) {
            next = clock.local(instant)
            let delta = instant.microseconds - clock.now.microseconds
            left = delta >= 0 ? formatRelativeSpan(microseconds: delta) : relativeToNow(delta)
        }
        if let text = item[member: "last"]?.stringValue, let fired = instant(fromTimeText: text, in: .utc) {
            lastText = clock.local(fired)
            passed = relativeToNow(fired.microseconds - clock.now.microseconds)
        }
        let trigger = item[member: "trigger"]?.stringValue ?? ""
        let repeats = trigger.hasPrefix("calendar ") ? String(trigger.dropFirst("calendar ".count)) : "-"
        rows.append((allApps ? [tableCell(item[member: "app"]?.stringValue ?? "")] : [])
                    + [next, left, lastText, passed, tableCell(repeats), tableCell(id),
                       tableCell(item[member: "title"]?.stringValue ?? "")])
    }
    Console.out(formatTable(rows))
    // The count and the rows are two reads: a push in between can make them disagree by that push,
    // never more; the footer then still names both numbers as read.
    if shown.count == total && offset == 0 {
        Console.out("\n\(total) pending.")
    } else if shown.isEmpty {
        Console.out("\nNone shown of \(total) pending (from #\(offset + 1)).")
    } else {
        Console.out("\nShowing \(shown.count) of \(total) pending" + (offset > 0 ? " (from #\(offset + 1))." : "."))
    }
}

/// `schedd history [--limit N]`: the newest N records (default 100; 0: all), oldest first. Human:
/// TIME and DUE in the daemon's device zone, EVENT, ID, TITLE, LATE (`0s` when on time) and REASON.
/// Read page by page (`HistoryPage`).
func runHistoryCommand(_ args: ParsedArguments) throws(CommandFailure) {
    let limit = try args.count("limit", default: 100) ?? 100
    let client = try DaemonSession(args)
    let text = mergedJSONArray(try client.historyPages(limit: limit == 0 ? nil : limit))
    if args.json {
        Console.out(text)
        return
    }
    let records = try DaemonSession.json(text, "History").arrayValue ?? []
    if records.isEmpty {
        Console.out("No history.")
        return
    }
    let clock = try DaemonClock.read(client)
    func local(_ member: String, of record: JSONValue) -> String {
        guard let text = record[member: member]?.stringValue else { return "-" }
        return instant(fromTimeText: text, in: .utc).map(clock.local) ?? text
    }
    var rows = [["TIME", "EVENT", "ID", "TITLE", "DUE", "LATE", "REASON"]]
    for r in records {
        var late = "-"
        if let seconds = r[member: "late"]?.numberText.flatMap(Double.init), seconds >= 0 {
            let micro = UInt64((seconds * 1e6).rounded())
            late = micro == 0 ? "0s" : TimeSpan.format(micro, accuracy: 1000)
        }
        rows.append([local("at", of: r), r[member: "event"]?.stringValue ?? "", tableCell(r[member: "id"]?.stringValue ?? ""),
                     tableCell(r[member: "title"]?.stringValue ?? "-"), local("due", of: r), late,
                     tableCell(r[member: "reason"]?.stringValue ?? "-")])
    }
    Console.out(formatTable(rows))
}
