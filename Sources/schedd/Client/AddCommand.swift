import ScheddService
import ScheddBus
import SchedCalendar
import Scheduler

/// `schedd add TITLE (--at WHEN | --in SPAN | --calendar SPEC) [--body TEXT] [--id ID]
/// [--cancel-on EVENT]… [--urgency LEVEL] [--grace SPAN] [--action ID=TITLE]… [--until WHEN] [--tz ZONE]`:
/// a push built for a person at a terminal, answered as `push` answers.
///
/// WHEN, in this order: a push's `at` (`2026-12-24T18:00` floats in the device zone, `…Z` and
/// `…+01:00` are instants), sent as written; a systemd timestamp (`systemd-analyze timestamp`:
/// `@1767225600`, `+2h`, `2026-12-24 18:00 UTC`, `18:00`), read at the daemon's clock in its device
/// zone; `today`/`tomorrow`/`yesterday` followed by a time (`tomorrow 18:00`, which systemd itself
/// does not read), that day's date with that time; else a calendar expression (`Fri 09:00`), its
/// next elapse. Everything but a push's `at` is sent as the instant it names. `--in SPAN` is the
/// daemon's clock plus a systemd time span. The id defaults to `cli_` and 12 random hex digits.
func runAddCommand(_ args: ParsedArguments) throws(CommandFailure) -> ExitCode {
    let title = args.positionals[0]
    let triggers = ["at", "in", "calendar"].filter(args.has)
    guard triggers.count == 1 else {
        throw .usage("add needs exactly one of --at WHEN, --in SPAN and --calendar SPEC"
                     + (triggers.isEmpty ? "" : ", not " + triggers.map { "--" + $0 }.joined(separator: " and ")))
    }
    let client = try SchedulerClient(args)
    var clock: DaemonClock?
    func daemonClock() throws(CommandFailure) -> DaemonClock {
        if let clock { return clock }
        let read = try DaemonClock.read(client)
        clock = read
        return read
    }
    let id = args.value("id") ?? generatedID()
    var local: [JSONMember] = [JSONMember("id", .string(id)), JSONMember("title", .string(title))]
    if let when = args.value("at") {
        local.append(JSONMember("at", .string(try whenText(when, option: "--at", clock: daemonClock))))
    } else if let span = args.value("in") {
        guard let micro = parseTimeSpan(span) else {
            throw .usage("--in needs a systemd time span (90s, 15min, '1h 30min'), not '\(span)'")
        }
        let at = try daemonClock().now.adding(microseconds: micro)
        guard at.isSupported else {
            throw .rejected("--in: \(span) from now is past the end of the supported range \(Instant.supportedRangeDescription)")
        }
        local.append(JSONMember("at", .string(at.rfc3339)))
    } else if var spec = args.value("calendar") {
        if let zone = args.value("tz") { spec += " " + zone }
        local.append(JSONMember("calendar", .string(spec)))
    }
    if let zone = args.value("tz"), args.has("at") { local.append(JSONMember("timeZone", .string(zone))) }
    if let until = args.value("until") {
        guard args.has("calendar") else { throw .usage("--until goes with --calendar") }
        local.append(JSONMember("until", .string(try whenText(until, option: "--until", clock: daemonClock))))
    }
    if let body = args.value("body") { local.append(JSONMember("body", .string(body))) }
    let events = args.values("cancel-on")
    if !events.isEmpty { local.append(JSONMember("cancelOn", .array(events.map(JSONValue.string)))) }
    if let urgency = args.value("urgency") {
        let levels = commandSpec(named: "add")!.options.first { $0.name == "urgency" }!.choices
        guard levels.contains(urgency) else {
            throw .usage("--urgency needs one of \(levels.joined(separator: ", ")), not '\(urgency)'")
        }
        local.append(JSONMember("urgency", .string(urgency)))
    }
    if let grace = args.value("grace") {
        guard let micro = parseTimeSpan(grace), micro % 1_000_000 == 0 else {
            throw .usage("--grace needs a systemd time span of whole seconds (90s, 15min), not '\(grace)'")
        }
        local.append(JSONMember("graceSeconds", .number(String(micro / 1_000_000))))
    }
    let actions = args.values("action")
    if !actions.isEmpty {
        var buttons: [JSONValue] = []
        for action in actions {
            guard let eq = action.firstIndex(of: "="), eq != action.startIndex, action.index(after: eq) != action.endIndex else {
                throw .usage("--action needs ID=TITLE (snooze=Later), not '\(action)'")
            }
            buttons.append(.object([JSONMember("id", .string(String(action[..<eq]))),
                                    JSONMember("title", .string(String(action[action.index(after: eq)...])))]))
        }
        local.append(JSONMember("actions", .array(buttons)))
    }
    let push = JSONValue.object([JSONMember("bk", .object([JSONMember("local", .object(local))]))]).serialized()
    let answer = try client.call("Push", { m throws(BusError) in try m.append(push) },
                                 read: { m throws(BusError) in try m.readString() })
    printOutcomes(try SchedulerClient.json(answer, "Push"), args: args, zone: args.json ? nil : try daemonClock().zone)
    return .success
}

/// WHEN as the text of a push's `at`/`until` (see `runAddCommand`); rejected (exit 1) when no form reads it.
private func whenText(_ when: String, option: String,
                      clock: () throws(CommandFailure) -> DaemonClock) throws(CommandFailure) -> String {
    // A push's `at` is written with a `T`; the CLI also reads a space there, and sends the `T` form.
    switch parseTimeText(when) {
    case .floating(let civil, _)?: return when.contains(" ") ? civil.iso8601(withOffset: nil) : when
    case .fixed(let instant, _)?: return when.contains(" ") ? instant.rfc3339 : when
    case nil: break
    }
    let clock = try clock()
    if let instant = instant(fromTimeArgument: when, now: clock.now, in: clock.zone) { return instant.rfc3339 }
    let words = when.split(separator: " ", maxSplits: 1)
    if words.count == 2, let days = ["yesterday": -1, "today": 0, "tomorrow": 1][String(words[0])] {
        let date = clock.zone.localDateTime(at: clock.now)
        let day = civilFromDays(date.daysSinceEpoch + Int64(days))
        let dated = "\(day.year)-\(twoDigits(day.month))-\(twoDigits(day.day)) \(words[1])"
        if let instant = instant(fromTimeArgument: dated, now: clock.now, in: clock.zone) { return instant.rfc3339 }
    }
    if let spec = try? CalendarSpec(parsing: when), let next = spec.nextElapse(after: clock.now, in: clock.zone) {
        return next.rfc3339
    }
    throw .rejected("\(option): '\(when)' is not a time: expected YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM], a systemd timestamp "
                    + "(18:00, +2h, @1767225600, 2026-12-24 18:00 UTC), 'tomorrow 18:00' or a calendar expression")
}

/// `cli_` and 12 random hex digits: unique enough for a person's schedules, and its own run.
private func generatedID() -> String {
    let hex = String(UInt64.random(in: 0..<(1 << 48)), radix: 16)
    return "cli_" + String(repeating: "0", count: 12 - hex.count) + hex
}
