import SchedCalendar
import Scheduler

/// `schedd timestamp [--base-time T] TIMESTAMP...`: how systemd reads timestamps, without a daemon —
/// line for line the output of `systemd-analyze timestamp` (systemd 252) under the same `TZ`, going
/// on past a rejected one (exit 1 if any). `--base-time` stands for the clock (what `now`, `+5min`
/// and `tomorrow` are read from, and "From now"). With `--json`:
/// `[{"timestamp","instant"} | {"timestamp","error"}, …]`.
func runTimestampCommand(_ args: ParsedArguments, now realNow: Instant) throws(CommandFailure) -> ExitCode {
    let zone = try Zones.device()
    let now = try args.value("base-time").map { (text: String) throws(CommandFailure) in try baseTime(text, now: realNow, in: zone) } ?? realNow
    var results: [JSONValue] = []
    var rejected = false
    // glibc's hidden state carries from one timestamp to the next, as in systemd-analyze.
    var state = SystemdTimestamp.GlibcState()
    for (index, text) in args.positionals.enumerated() {
        let isLast = index == args.positionals.count - 1
        let micro: UInt64
        do {
            micro = try SystemdTimestamp.parse(text, now: now, zone: zone, state: &state,
                                               isZoneName: Zones.isSystemdZoneName)
        } catch {
            rejected = true
            results.append(.object([JSONMember("timestamp", .string(text)), JSONMember("error", .string(error.description))]))
            if !args.json {
                Console.err("schedd: Failed to parse \"\(text)\": Invalid argument")
                if !isLast { Console.out("") }
            }
            continue
        }
        let instant = Instant(microseconds: Int64(clamping: micro))
        results.append(.object([JSONMember("timestamp", .string(text)), JSONMember("instant", .string(instant.rfc3339))]))
        if args.json { continue }
        // systemd prints "-" for a timestamp it counts as unset: 0 and infinity.
        let unset = micro == 0 || micro == TimeSpan.infinity
        var lines = [systemdLine("Original form", text),
                     systemdLine("Normalized form", unset ? "-" : systemdTimestamp(instant, in: zone))]
        if !zone.glibcState(after: instant).isUTC {
            lines.append(systemdLine("(in UTC)", unset ? "-" : systemdTimestamp(instant, in: .utc)))
        }
        let seconds = micro / 1_000_000, fraction = micro % 1_000_000
        let fractionText = String(fraction)
        lines.append(systemdLine("UNIX seconds", "@\(seconds)"
            + (fraction == 0 ? "" : "." + String(repeating: "0", count: 6 - fractionText.count) + fractionText)))
        lines.append(systemdLine("From now", unset ? "-" : relativeToNow(instant.microseconds - now.microseconds)))
        Console.out(lines.joined(separator: "\n") + (isLast ? "" : "\n"))
    }
    if args.json { Console.out(JSONValue.array(results).serialized()) }
    return rejected ? .rejected : .success
}
