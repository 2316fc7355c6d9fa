import ScheddBus
import Scheduler

/// `schedd track EVENT [--data JSON]` → `{"event","cancelled":[ids]}`.
func runTrackCommand(_ args: ParsedArguments) throws(CommandFailure) {
    let event = args.positionals[0]
    let data = args.value("data") ?? ""
    if !data.isEmpty, case .failure(let failure) = parseJSON(data) {
        throw .rejected("--data: \(failure.message)")
    }
    let client = try SchedulerClient(args)
    let ids = try naming("track") { () throws(CommandFailure) in
        try client.call("Track", { m throws(BusError) in try m.append(event); try m.append(data) },
                        read: { m throws(BusError) in try m.readStrings() })
    }
    if args.json {
        Console.out(JSONValue.object([JSONMember("event", .string(event)),
                                      JSONMember("cancelled", .array(ids.map(JSONValue.string)))]).serialized())
    } else {
        Console.out(ids.isEmpty ? "\(event): nothing cancelled" : "\(event): cancelled \(ids.joined(separator: ", "))")
    }
}

/// `schedd cancel ID | --run RUN` → `{"cancelled":[ids]}`; an unknown id cancels nothing (exit 0)
/// and still leaves a tombstone.
func runCancelCommand(_ args: ParsedArguments) throws(CommandFailure) {
    let member: String, argument: String
    switch (args.positionals.first, args.value("run")) {
    case (let id?, nil): (member, argument) = ("Cancel", id)
    case (nil, let run?): (member, argument) = ("CancelRun", run)
    default: throw .usage("cancel needs exactly one of ID and --run RUN; usage: schedd cancel ID | --run RUN")
    }
    let client = try SchedulerClient(args)
    let ids = try naming("cancel") { () throws(CommandFailure) in
        try client.call(member, { m throws(BusError) in try m.append(argument) },
                        read: { m throws(BusError) in try m.readStrings() })
    }
    if args.json {
        Console.out(JSONValue.object([JSONMember("cancelled", .array(ids.map(JSONValue.string)))]).serialized())
    } else {
        Console.out(ids.isEmpty ? "Nothing cancelled." : "Cancelled \(ids.joined(separator: ", ")).")
    }
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

/// `schedd clock show | set TIME | advance SPAN | zone ZONE` → `{"now","zone","fake"}`.
func runClockCommand(_ args: ParsedArguments) throws(CommandFailure) {
    let action = args.positionals[0]
    let rest = args.positionals.dropFirst().joined(separator: " ")
    let actions = ["show", "set", "advance", "zone"]
    guard actions.contains(action) else {
        var message = "unknown clock action '\(action)'"
        if let hint = closestMatch(to: action, among: actions) { message += "; did you mean '\(hint)'?" }
        throw .usage(message + " (show, set TIME, advance SPAN, zone ZONE)")
    }
    if action == "show" && !rest.isEmpty { throw .usage("clock show takes no argument") }
    if action != "show" && rest.isEmpty {
        throw .usage("clock \(action) needs \(["set": "TIME", "advance": "SPAN", "zone": "ZONE"][action]!)")
    }
    let client = try SchedulerClient(args)
    let reply: String
    let readString: (BusMessage) throws(BusError) -> String = { m throws(BusError) in try m.readString() }
    switch action {
    case "set":
        guard parseTimeText(rest) != nil else {
            throw .usage("clock set needs YYYY-MM-DDTHH:MM[:SS] with optional Z or ±HH:MM, not '\(rest)'")
        }
        reply = try client.call("ClockSet", { m throws(BusError) in try m.append(rest) }, read: readString)
    case "advance":
        guard let span = parseTimeSpan(rest) else {
            throw .usage("clock advance needs a time span like 90s, 15min, 2h or '1d 6h', not '\(rest)'")
        }
        // Time passing delivers everything due in the span before answering: allow it an hour.
        reply = try client.call("ClockAdvance", timeoutMicroseconds: 3_600_000_000,
                                { m throws(BusError) in try m.append(UInt64(span)) }, read: readString)
    case "zone":
        reply = try client.call("ClockZone", { m throws(BusError) in try m.append(rest) }, read: readString)
    default:
        reply = try client.call("ClockShow", { _ throws(BusError) in }, read: readString)
    }
    if args.json {
        Console.out(reply)
        return
    }
    let value = try SchedulerClient.json(reply, "Clock")
    let now = value[member: "now"]?.stringValue ?? "?"
    let zoneName = value[member: "zone"]?.stringValue ?? "?"
    var local = now
    if let zone = try? Zones.named(zoneName), let instant = instant(fromTimeText: now, in: .utc) {
        local = systemdTimestamp(instant, in: zone) + " (\(now))"
    }
    let fake = value[member: "fake"] == .bool(true)
    Console.out("\(local), zone \(zoneName), \(fake ? "fake clock" : "real clock")")
}
