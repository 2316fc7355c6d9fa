import SchedCalendar
import ScheddService
import Scheduler

/// `schedd resolve [--tz ZONE] WALL...`: how wall-clock times map to instants in a zone
/// (CONTRACT §2: a gap takes the offset before it, a fold its first occurrence).
///
/// One result per WALL, in order, going on past a rejected one (exit 1 if any):
/// `{"wall","instant","offset","local","kind"}` where `offset` is the one applied to the wall time
/// (wall − offset = instant) and `local` the wall clock at that instant with its own offset
/// (`2026-03-08T02:30` in New York → `2026-03-08T03:30:00-04:00`), or `{"wall","error"}`.
/// Human: `2026-03-08T02:30 America/New_York → Sun 2026-03-08 03:30:00 EDT (2026-03-08T07:30:00Z; gap: …)`.
func runResolveCommand(_ args: ParsedArguments) throws(CommandFailure) -> ExitCode {
    let zone = try Zones.zone(option: args.value("tz"))
    var results: [JSONValue] = []
    var lines: [String] = []
    var rejected = false
    for wall in args.positionals {
        guard case .floating(let civil, _)? = parseTimeText(wall) else {
            let message = "'\(wall)' is not a wall-clock time: expected YYYY-MM-DDTHH:MM[:SS] without an offset"
            rejected = true
            results.append(.object([JSONMember("wall", .string(wall)), JSONMember("error", .string(message))]))
            if !args.json { Console.err("schedd: \(message)") }
            continue
        }
        let resolution = zone.resolve(civil)
        guard resolution.instant.isSupported else {
            // 9999-12-31T23:59 west of UTC, 0001-01-01T00:00 east of it: a wall time of the years 1–9999
            // whose instant is not (CONTRACT §9: an out-of-range time is an error naming the limit).
            let message = "'\(wall)' in \(zone.name) is \(resolution.instant.rfc3339), outside the supported range "
                + Instant.supportedRangeDescription
            rejected = true
            results.append(.object([JSONMember("wall", .string(wall)), JSONMember("error", .string(message))]))
            if !args.json { Console.err("schedd: \(message)") }
            continue
        }
        let local = zone.offset(at: resolution.instant)
        let localText = CivilDateTime(instant: resolution.instant, offsetSeconds: local.utcOffsetSeconds)
            .iso8601(withOffset: local.utcOffsetSeconds)
        results.append(.object([
            JSONMember("wall", .string(wall)),
            JSONMember("instant", .string(resolution.instant.rfc3339)),
            JSONMember("offset", .string(formatOffset(resolution.offsetSeconds))),
            JSONMember("local", .string(localText)),
            JSONMember("kind", .string(resolution.kind.rawValue)),
        ]))
        var note = ""
        switch resolution.kind {
        case .unique: break
        case .gap: note = "; gap: \(wall) does not exist, read with the offset before it (\(formatOffset(resolution.offsetSeconds)))"
        case .fold: note = "; fold: \(wall) occurs twice, the first occurrence"
        }
        lines.append("\(wall) \(zone.name) → \(systemdTimestamp(resolution.instant, in: zone)) (\(resolution.instant.rfc3339)\(note))")
    }
    if args.json {
        Console.out(JSONValue.array(results).serialized())
    } else if !lines.isEmpty {
        Console.out(lines.joined(separator: "\n"))
    }
    return rejected ? .rejected : .success
}
