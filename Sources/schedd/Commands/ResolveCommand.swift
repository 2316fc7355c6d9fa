import SchedCalendar
import ScheddService
import Scheduler

/// `schedd resolve [--tz ZONE] WALL...`: how wall-clock times map to instants in a zone
/// (CONTRACT §2: a gap takes the offset before it, a fold its first occurrence).
func runResolveCommand(_ args: ParsedArguments) throws(CommandFailure) {
    let zone = try Zones.zone(option: args.value("tz"))
    var results: [JSONValue] = []
    var lines: [String] = []
    for wall in args.positionals {
        guard case .floating(let civil, _)? = parseTimeText(wall) else {
            throw .rejected("'\(wall)' is not a wall-clock time: expected YYYY-MM-DDTHH:MM[:SS] without an offset")
        }
        let resolution = zone.resolve(civil)
        let offset = formatOffset(resolution.offsetSeconds)
        results.append(.object([
            JSONMember("wall", .string(wall)),
            JSONMember("instant", .string(resolution.instant.rfc3339)),
            JSONMember("offset", .string(offset)),
            JSONMember("kind", .string(resolution.kind.rawValue)),
        ]))
        var note = ""
        switch resolution.kind {
        case .unique: break
        case .gap: note = "  (gap: does not exist; read with the offset before it)"
        case .fold: note = "  (fold: occurs twice; the first occurrence)"
        }
        lines.append("\(wall) \(zone.name) → \(resolution.instant.rfc3339) (\(offset))" + note)
    }
    Console.out(args.json ? JSONValue.array(results).serialized() : lines.joined(separator: "\n"))
}
