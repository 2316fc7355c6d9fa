import ScheddClientCore
import ScheddService
import ScheddBus
import Scheduler

/// `schedd track EVENT [--data JSON]` → `{"event","cancelled":[ids]}`.
func runTrackCommand(_ args: ParsedArguments) throws(CommandFailure) {
    let event = args.positionals[0]
    let data = args.value("data") ?? ""
    if !data.isEmpty, case .failure(let failure) = parseJSON(data) {
        throw .rejected("--data: \(failure.message)")
    }
    let client = try DaemonSession(args)
    let (count, ids, more) = try naming("track") { () throws(CommandFailure) in
        try client.cancelled("Track", { m throws(BusError) in try m.append(event); try m.append(data) })
    }
    // The daemon lists at most one reply's worth of ids; `more` counts those left out.
    let unlisted = more ? Int(count) - ids.count : 0
    if args.json {
        var members = [JSONMember("event", .string(event)), JSONMember("cancelled", .array(ids.map(JSONValue.string)))]
        if unlisted > 0 { members.append(JSONMember("more", .number(String(unlisted)))) }
        Console.out(JSONValue.object(members).serialized())
    } else {
        Console.out(ids.isEmpty ? "\(event): nothing cancelled"
                    : "\(event): cancelled \(ids.joined(separator: ", "))" + (unlisted > 0 ? " and \(unlisted) more" : ""))
    }
}

/// `schedd cancel ID | --run RUN` → `{"id"|"run","cancelled":[ids],"closed":[ids]}`: `closed` names
/// notifications that had fired and were still on screen (closed now, history `closed`). An unknown id
/// cancels nothing (exit 0) and still leaves a tombstone.
func runCancelCommand(_ args: ParsedArguments) throws(CommandFailure) {
    let member: String, argument: String
    switch (args.positionals.first, args.value("run")) {
    case (let id?, nil): (member, argument) = ("CancelReport", id)
    case (nil, let run?): (member, argument) = ("CancelRunReport", run)
    default: throw .usage("cancel needs exactly one of ID and --run RUN; usage: schedd cancel ID | --run RUN")
    }
    let client = try DaemonSession(args)
    let text = try naming("cancel") { () throws(CommandFailure) in
        try client.string(member, { m throws(BusError) in try m.append(argument) })
    }
    if args.json {
        Console.out(text)
        return
    }
    let value = try DaemonSession.json(text, member)
    let cancelled = value[member: "cancelled"]?.arrayValue?.compactMap(\.stringValue) ?? []
    let closed = value[member: "closed"]?.arrayValue?.compactMap(\.stringValue) ?? []
    let more = value[member: "more"]?.numberText.map { " and \($0) more" } ?? ""
    var line = cancelled.isEmpty ? "Nothing cancelled." : "Cancelled \(cancelled.joined(separator: ", "))\(more)."
    if !closed.isEmpty { line += " Closed \(closed.joined(separator: ", ")) (was on screen)." }
    Console.out(line)
}

/// Runs `call`, prefixing the message of a rejected argument with the command's name
/// (`cancel: id: longer than 200 bytes`); other failures pass unchanged.
private func naming<T>(_ command: String, _ call: () throws(CommandFailure) -> T) throws(CommandFailure) -> T {
    do {
        return try call()
    } catch where error.code == .rejected {
        throw CommandFailure(.rejected, command + ": " + error.message, jsonBody: error.jsonBody)
    }
}

/// `schedd clock show | set TIME | advance SPAN | next | sleep SPAN | zone ZONE` → `{"now","zone","fake"}`.
/// `set` takes RFC 3339 or a systemd timestamp read at the daemon's clock in its zone
/// (`tomorrow 09:00`, `+2h`, `@1767225600`); `advance` a systemd time span. Human output names the
/// time in the daemon's zone: `Sat 2026-03-07 07:00:00 EST (2026-03-07T12:00:00Z), zone
/// America/New_York, fake clock`.
func runClockCommand(_ args: ParsedArguments) throws(CommandFailure) {
    let action = args.positionals[0]
    let rest = args.positionals.dropFirst().joined(separator: " ")
    let actions = commandSpec(named: "clock")!.actions
    guard let spec = actions.first(where: { $0.name == action }) else {
        var message = "unknown clock action '\(action)'"
        if let hint = closestMatch(to: action, among: actions.map(\.name)) { message += "; did you mean '\(hint)'?" }
        throw .usage(message + " (" + actions.map { $0.name + ($0.arguments.isEmpty ? "" : " " + $0.arguments) }
            .joined(separator: ", ") + ")")
    }
    if spec.arguments.isEmpty && !rest.isEmpty { throw .usage("clock \(action) takes no argument") }
    if !spec.arguments.isEmpty && rest.isEmpty { throw .usage("clock \(action) needs \(spec.arguments)") }
    let client = try DaemonSession(args)
    let reply: String
    switch action {
    case "set":
        let clock = try DaemonClock.read(client)
        guard let target = instant(fromTimeArgument: rest, now: clock.now, in: clock.zone) else {
            throw .usage("clock set needs an RFC 3339 time (2026-03-08T01:00:00Z, or a wall time in the device zone) "
                         + "or a systemd timestamp (tomorrow 09:00, @1767225600), not '\(rest)'")
        }
        reply = try client.string("ClockSet", { m throws(BusError) in try m.append(target.rfc3339) })
    case "advance":
        guard let span = parseTimeSpan(rest) else {
            throw .usage("clock advance needs a systemd time span like 90s, 15min, 2h or '1d 6h', not '\(rest)'" + spanHint(rest))
        }
        // Time passing delivers everything due in the span before answering: allow it an hour.
        reply = try client.string("ClockAdvance", timeoutMicroseconds: 3_600_000_000,
                                  { m throws(BusError) in try m.append(UInt64(span)) })
    case "next":
        reply = try client.string("ClockNext", timeoutMicroseconds: 3_600_000_000, { _ throws(BusError) in })
    case "sleep":
        guard let span = parseTimeSpan(rest) else {
            throw .usage("clock sleep needs a systemd time span like 8h or '7h 30min', not '\(rest)'")
        }
        reply = try client.string("ClockSleep", timeoutMicroseconds: 3_600_000_000,
                                  { m throws(BusError) in try m.append(UInt64(span)) })
    case "zone":
        reply = try client.string("ClockZone", { m throws(BusError) in try m.append(rest) })
    default:
        reply = try client.string("ClockShow", { _ throws(BusError) in })
    }
    if args.json {
        Console.out(reply)
        return
    }
    let clock = try DaemonClock(json: reply)
    Console.out("\(clock.local(clock.now)) (\(clock.now.rfc3339)), zone \(clock.zoneName), "
                + (clock.fake ? "fake clock" : "real clock"))
}
