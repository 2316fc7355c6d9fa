import SchedCalendar
import ScheddService
import Scheduler

/// `schedd calendar [--tz ZONE] [--base-time T] [--iterations N] SPEC...`: the next elapses of
/// calendar expressions, printed like `systemd-analyze calendar` (or as CONTRACT §6 JSON).
///
/// Each spec is evaluated in its own zone when it names one, else in `--tz` or the device zone;
/// times print in that display zone with a `(in UTC)` line when it is not UTC. A spec that does not
/// parse ends the command with exit 1 after the specs before it (JSON: only `{"spec","error"}`).
func runCalendarCommand(_ args: ParsedArguments, now: Instant) throws(CommandFailure) {
    let zone = try Zones.zone(option: args.value("tz"))
    let iterations = try args.count("iterations", default: 1) ?? 1
    guard iterations >= 1 else { throw .usage("--iterations needs a positive integer") }
    var base = now
    if let text = args.value("base-time") {
        guard let parsed = instant(fromTimeText: text, in: zone) else {
            throw .usage("--base-time needs YYYY-MM-DD[THH:MM[:SS]] with optional Z or ±HH:MM, not '\(text)'")
        }
        base = parsed
    }
    var results: [JSONValue] = []
    var humanBlocks: [String] = []
    for source in args.positionals {
        let spec: CalendarSpec
        do {
            spec = try CalendarSpec(parsing: source)
        } catch {
            if args.json {
                throw CommandFailure(.rejected, "", jsonBody: JSONValue.object([
                    JSONMember("spec", .string(source)), JSONMember("error", .string(error.message))]).serialized())
            }
            if !humanBlocks.isEmpty { Console.out(humanBlocks.joined(separator: "\n\n")) }
            throw .rejected("Failed to parse calendar specification '\(source)': \(error.message)")
        }
        let evaluationZone = try spec.timeZoneName.map { (name: String) throws(CommandFailure) in try Zones.named(name) }
            ?? zone
        var elapses: [Instant] = []
        var cursor = base
        while elapses.count < iterations, let next = spec.nextElapse(after: cursor, in: evaluationZone) {
            elapses.append(next)
            cursor = next
        }
        results.append(.object([
            JSONMember("spec", .string(source)),
            JSONMember("normalized", .string(spec.normalized)),
            JSONMember("next", .array(elapses.map { .string($0.rfc3339) })),
        ]))
        humanBlocks.append(calendarHumanBlock(spec: spec, elapses: elapses, zone: zone, now: now))
    }
    if args.json {
        Console.out(JSONValue.array(results).serialized())
    } else {
        Console.out(humanBlocks.joined(separator: "\n\n"))
    }
}

/// One spec's block in `systemd-analyze calendar` layout (labels right-aligned to 15 columns).
/// "From now" is measured from the real clock, not from `--base-time`, as systemd does.
func calendarHumanBlock(spec: CalendarSpec, elapses: [Instant], zone: TimeZoneRules, now: Instant) -> String {
    func line(_ label: String, _ value: String) -> String {
        String(repeating: " ", count: max(0, 15 - label.count)) + label + ": " + value
    }
    // Like systemd-analyze, the original form is shown only when normalizing changed it.
    var lines = spec.source == spec.normalized ? [] : [line("Original form", spec.source)]
    lines.append(line("Normalized form", spec.normalized))
    if elapses.isEmpty { lines.append(line("Next elapse", "never")) }
    let showUTC = zone.name != "UTC"
    for (i, elapse) in elapses.enumerated() {
        lines.append(line(i == 0 ? "Next elapse" : "Iter. #\(i + 1)", systemdTimestamp(elapse, in: zone)))
        if showUTC { lines.append(line("(in UTC)", systemdTimestamp(elapse, in: .utc))) }
        lines.append(line("From now", relativeToNow(elapse.microseconds - now.microseconds)))
    }
    return lines.joined(separator: "\n")
}
