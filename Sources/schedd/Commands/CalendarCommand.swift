import SchedCalendar
import ScheddService
import Scheduler
import SystemZones

/// `schedd calendar [--tz ZONE] [--base-time T] [--iterations N] SPEC...`: the next elapses of
/// calendar expressions, printed line for line as `systemd-analyze calendar` (systemd 252) prints
/// them under the same `TZ`, or as CONTRACT §6 JSON.
///
/// One result per spec, in order, going on past a rejected one (JSON `{"spec","error"}`; human: the
/// reason on stderr and the blank line systemd leaves); exit 1 if any was rejected. A spec naming
/// its own zone is evaluated there, and every time is printed in the display zone (`--tz`, else the
/// device zone), followed by an `(in UTC)` line exactly when systemd prints one: when glibc's
/// `timezone`/`daylight` for that zone are not both 0 (`Etc/UTC` and `Africa/Abidjan` print none,
/// `Europe/London` does). "From now" is measured from the real clock even with `--base-time`, as
/// systemd does.
func runCalendarCommand(_ args: ParsedArguments, now: Instant) throws(CommandFailure) -> ExitCode {
    let zone = try Zones.zone(option: args.value("tz"))
    let iterations = try args.count("iterations", default: 1) ?? 1
    guard iterations >= 1 else { throw .usage("--iterations needs a positive integer") }
    let base = try args.value("base-time").map { (text: String) throws(CommandFailure) in try baseTime(text, now: now, in: zone) } ?? now
    var results: [JSONValue] = []
    var rejected = false
    // glibc's mktime state, threaded through every spec and iteration as in one systemd-analyze process:
    // it decides which pass of a standard-time fold a wall time means (CalendarSpec.MktimeState).
    var mktime = MktimeState()
    for (index, source) in args.positionals.enumerated() {
        let isLast = index == args.positionals.count - 1
        let spec: CalendarSpec
        let evaluationZone: TimeZoneRules
        do throws(CommandFailure) {
            do {
                spec = try CalendarSpec(parsing: source, zones: ZoneDatabase.shared)
            } catch {
                throw .rejected(error.message)
            }
            evaluationZone = try spec.timeZoneName.map { (name: String) throws(CommandFailure) in try Zones.named(name, option: "zone") } ?? zone
        } catch {
            rejected = true
            results.append(.object([JSONMember("spec", .string(source)), JSONMember("error", .string(error.message))]))
            if !args.json {
                Console.err("schedd: Failed to parse calendar specification '\(source)': \(error.message)")
                if !isLast { Console.out("") }
            }
            continue
        }
        var elapses: [Instant] = []
        var cursor = base
        while elapses.count < iterations, let next = spec.nextElapse(after: cursor, in: evaluationZone, state: &mktime) {
            elapses.append(next)
            cursor = next
        }
        results.append(.object([
            JSONMember("spec", .string(source)),
            JSONMember("normalized", .string(spec.normalized)),
            JSONMember("next", .array(elapses.map { .string($0.rfc3339) })),
        ]))
        if !args.json {
            Console.out(calendarHumanBlock(spec: spec, elapses: elapses, zone: zone, now: now) + (isLast ? "" : "\n"))
        }
    }
    if args.json { Console.out(JSONValue.array(results).serialized()) }
    return rejected ? .rejected : .success
}

/// One label-value line of systemd-analyze's layout: the label right-aligned to 15 columns.
func systemdLine(_ label: String, _ value: String) -> String {
    String(repeating: " ", count: max(0, 15 - label.count)) + label + ": " + value
}

/// One spec's block in `systemd-analyze calendar` layout.
func calendarHumanBlock(spec: CalendarSpec, elapses: [Instant], zone: TimeZoneRules, now: Instant) -> String {
    // Like systemd-analyze, the original form is shown only when normalizing changed it.
    var lines = spec.source == spec.normalized ? [] : [systemdLine("Original form", spec.source)]
    lines.append(systemdLine("Normalized form", spec.normalized))
    if elapses.isEmpty { lines.append(systemdLine("Next elapse", "never")) }
    for (i, elapse) in elapses.enumerated() {
        lines.append(systemdLine(i == 0 ? "Next elapse" : "Iter. #\(i + 1)", systemdTimestamp(elapse, in: zone)))
        if !zone.glibcState(after: elapse).isUTC {
            lines.append(systemdLine("(in UTC)", systemdTimestamp(elapse, in: .utc)))
        }
        lines.append(systemdLine("From now", relativeToNow(elapse.microseconds - now.microseconds)))
    }
    return lines.joined(separator: "\n")
}
