import ScheddBus
import ScheddClientCore
import SchedCalendar
import ScheddService
import Scheduler

/// `schedd add TITLE (--at WHEN | --in SPAN | --calendar SPEC) [--body TEXT] [--id ID [--replace]]
/// [--cancel-on EVENT]… [--urgency LEVEL] [--grace SPAN] [--action ID=TITLE]… [--snooze SPAN]…
/// [--icon NAME] [--deep-link URL] [--until WHEN] [--tz ZONE]`: a push built for a person at a
/// terminal, answered as `push` answers — but never "done" for what will not happen (CONTRACT §6):
/// a time in the past, an `--until` in the past, a calendar with no elapse left and an id blocked by
/// a cancel's tombstone are errors (exit 1) that say why and how to proceed (docs/cli.md).
///
/// WHEN: see `readWhen` (AddWhen.swift). `--in SPAN` is the daemon's clock plus a systemd time span.
/// The id defaults to `cli_` and 12 random hex digits. Option values are checked here, before the
/// daemon sees them, and the daemon's rejections are reported with the option's name (`inOptionTerms`).
func runAddCommand(_ args: ParsedArguments) throws(CommandFailure) -> ExitCode {
    let title = args.positionals[0]
    let triggers = ["at", "in", "calendar"].filter(args.has)
    guard triggers.count == 1 else {
        throw .usage("add needs exactly one of --at WHEN, --in SPAN and --calendar SPEC"
                     + (triggers.isEmpty ? "" : ", not " + triggers.map { "--" + $0 }.joined(separator: " and ")))
    }
    if args.has("tz") && args.has("in") { throw .usage("--tz goes with --at or --calendar: an --in span is the same in every zone") }
    if args.has("until") && !args.has("calendar") { throw .usage("--until goes with --calendar") }
    if args.has("replace") && !args.has("id") { throw .usage("--replace goes with --id (a new cli_… id is never blocked)") }
    let pin = try args.value("tz").map { (name: String) throws(CommandFailure) in PinnedZone(name: name, rules: try Zones.named(name)) }
    var local: [JSONMember] = []
    var bk: [JSONMember] = []
    try addPresentation(args, to: &local, envelope: &bk)

    // Checked before the daemon is asked anything: a usage error needs no daemon.
    let inSpan = try args.value("in").map { (span: String) throws(CommandFailure) -> Int64 in
        guard let micro = parseTimeSpan(span) else {
            throw .usage("--in needs a systemd time span (90s, 15min, '1h 30min'), not '\(span)'" + spanHint(span))
        }
        return micro
    }

    let session = try DaemonSession(args)
    let clock = try DaemonClock.read(session)
    let fix = "give a later time (e.g. --at 'tomorrow 09:00'), or --in SPAN"
    // The first due this push would have — a one-shot's instant, a calendar's next elapse — to tell a pending
    // duplicate from a superseded one. (A superseded calendar with the same expression and another title
    // shows the same next due and is not told apart: its answer stays `duplicate`.)
    var requested: Instant?
    if let when = args.value("at") {
        let time = try readWhen(when, option: "--at", clock: clock, pin: pin, nextOccurrence: true)
        try rejectPast(time, option: "--at", written: when, clock: clock, fix: fix)
        requested = time.instant
        local.append(JSONMember("at", .string(time.pushText)))
        if let pin { local.append(JSONMember("timeZone", .string(pin.name))) }
    } else if let span = args.value("in"), let micro = inSpan {
        let at = clock.now.adding(microseconds: micro)
        guard at.isSupported else {
            throw .rejected("--in: \(span) from now is past the end of the supported range \(Instant.supportedRangeDescription)")
        }
        local.append(JSONMember("at", .string(at.rfc3339)))
        requested = at
    } else if let spec = args.value("calendar") {
        var until: (time: AddTime, written: String)?
        if let text = args.value("until") {
            let time = try readWhen(text, option: "--until", clock: clock, pin: pin, nextOccurrence: false)
            try rejectPast(time, option: "--until", written: text, clock: clock, fix: "give a later --until, or none")
            until = (time, text)
        }
        let calendar = try checkCalendar(spec, pin: pin, until: until, clock: clock)
        local.append(JSONMember("calendar", .string(calendar.text)))
        requested = calendar.next
        if let until { local.append(JSONMember("until", .string(until.time.pushText))) }
    }
    let id = args.value("id") ?? generatedID()
    local.insert(contentsOf: [JSONMember("id", .string(id)), JSONMember("title", .string(title))], at: 0)
    bk.insert(JSONMember("local", .object(local)), at: 0)
    let push = JSONValue.object([JSONMember("bk", .object(bk))]).serialized()
    // The push's own outcome decides (one call, no window between a check and the push): `cancelled`
    // is a tombstone, explained afterwards (or lifted, with --replace, and pushed once more); `missed`
    // is a time that passed before the daemon got the push. Either way exit 1, never "done".
    var outcomes = try addPush(push, session: session)
    if pushStatus(outcomes) == "cancelled" {
        try explainTombstone(id, session: session, clock: clock, replace: args.has("replace"))
        outcomes = try addPush(push, session: session)
        if pushStatus(outcomes) == "cancelled" {
            throw .rejected("--id \(id): cancelled again while add lifted its block (another cancel came in between); "
                            + "nothing was scheduled: run add again, or choose another --id")
        }
    }
    if pushStatus(outcomes) == "missed" {
        let grace = args.value("grace").map { "its --grace \($0)" } ?? "the default grace"
        let trigger = triggers[0]
        throw .rejected("--\(trigger) \(args.value(trigger) ?? ""): the time had passed by more than \(grace) when the "
                        + "daemon received it, so it would never be shown (history records it missed): give a later "
                        + "time, or a longer --grace")
    }
    // `duplicate` of a one-shot that is pending for another time: this very push was applied before
    // and replaced since (an older version, CONTRACT §1), so it changes nothing. --replace forgets the
    // earlier pushes (`Unblock`) and pushes once more.
    if pushStatus(outcomes) == "duplicate", let requested, let next = pushNext(outcomes), next != requested {
        guard args.has("replace") else {
            throw .rejected("--id \(id): this very push was applied before and replaced since (pending for "
                            + "\(clock.local(next))): pushes are idempotent, so sending it again changes nothing; "
                            + "add --replace to schedule it again")
        }
        _ = try session.string("Unblock", { m throws(BusError) in try m.append(id) })
        outcomes = try addPush(push, session: session)
    }
    // A bare number is seconds (systemd's default unit): said, so that `--in 5` is not read as minutes.
    var output = StdoutLines()
    printOutcomes(outcomes, args: args, zone: clock.zone, into: &output,
                  note: args.value("in").flatMap(bareSeconds).map { "in \($0) s" })
    output.flush()
    return .success
}

/// The number of a span written as a bare number (`5`, ` 90 `, `1.5`), which systemd reads as
/// seconds; nil for a span with a unit.
private func bareSeconds(_ span: String) -> String? {
    let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    let number = String(span.drop(while: blank).reversed().drop(while: blank).reversed())
    guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) else { return nil }
    return number
}

/// The `next` of add's one `bk.local` outcome; nil when null.
private func pushNext(_ outcomes: JSONValue) -> Instant? {
    outcomes.arrayValue?.last?[member: "next"]?.stringValue.flatMap { instant(fromTimeText: $0, in: .utc) }
}

/// Sends add's push and reads its outcomes; the daemon's rejections in the options' terms.
private func addPush(_ push: String, session: DaemonSession) throws(CommandFailure) -> JSONValue {
    let answer: String
    do {
        answer = try session.string("Push", { m throws(BusError) in try m.append(push) })
    } catch where error.code == .rejected {
        throw .rejected(inOptionTerms(error))
    }
    return try DaemonSession.json(answer, "Push")
}

/// The status of add's one `bk.local` outcome.
private func pushStatus(_ outcomes: JSONValue) -> String? {
    outcomes.arrayValue?.last?[member: "status"]?.stringValue
}

/// The members that only shape the notification: body, cancelOn, urgency, grace, actions, snoozes,
/// icon (`bk.local`) and the deep link (`bk.deepLink`), each checked with its option's name.
private func addPresentation(_ args: ParsedArguments, to local: inout [JSONMember], envelope bk: inout [JSONMember]) throws(CommandFailure) {
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
            throw .usage("--grace needs a systemd time span of whole seconds (90s, 15min), not '\(grace)'" + spanHint(grace))
        }
        local.append(JSONMember("graceSeconds", .number(String(micro / 1_000_000))))
    }
    let actions = args.values("action")
    if !actions.isEmpty {
        var buttons: [JSONValue] = []
        for action in actions {
            guard let eq = action.firstIndex(of: "="), eq != action.startIndex, action.index(after: eq) != action.endIndex else {
                throw .usage("--action needs ID=TITLE (ok=Got it), not '\(action)'")
            }
            buttons.append(.object([JSONMember("id", .string(String(action[..<eq]))),
                                    JSONMember("title", .string(String(action[action.index(after: eq)...])))]))
        }
        local.append(JSONMember("actions", .array(buttons)))
    }
    let snoozes = args.values("snooze")
    if !snoozes.isEmpty {
        var seconds: [JSONValue] = []
        for span in snoozes {
            guard let micro = parseTimeSpan(span), micro % 1_000_000 == 0 else {
                throw .usage("--snooze needs a systemd time span of whole seconds (10min, 1h), not '\(span)'" + spanHint(span))
            }
            seconds.append(.number(String(micro / 1_000_000)))
        }
        local.append(JSONMember("snoozeSeconds", .array(seconds)))
    }
    if let icon = args.value("icon") { local.append(JSONMember("icon", .string(icon))) }
    if let link = args.value("deep-link") { bk.append(JSONMember("deepLink", .string(link))) }
}

/// `cli_` and 12 random hex digits: unique enough for a person's schedules, and its own run.
private func generatedID() -> String {
    let hex = String(UInt64.random(in: 0..<(1 << 48)), radix: 16)
    return "cli_" + String(repeating: "0", count: 12 - hex.count) + hex
}
