import ScheddBus
import SchedCalendar
import Scheduler
import ScheddClientCore
import ScheddService

/// `schedd status [--json]` (CONTRACT §11 "Status"): what a person checks first — version, database and
/// its size, pending and snoozed counts, the next due, the notifier and its server, wake capability, the
/// last sleep and resume, the bus served. `--json` prints the daemon's `Status` answer as it is; exit 3
/// with the no-daemon hint when none answers (DaemonSession).
func runStatusCommand(_ args: ParsedArguments) throws(CommandFailure) {
    let client = try DaemonSession(args)
    let text = try client.string("Status")
    if args.json {
        Console.out(text)
        return
    }
    let clock = try? DaemonClock.read(client)
    let status = try DaemonSession.json(text, "Status")
    func when(_ value: JSONValue?) -> String {
        guard let text = value?.stringValue, let at = instant(fromTimeText: text, in: .utc) else { return "-" }
        return clock.map { "\($0.local(at)) (\(text))" } ?? text
    }
    func word(_ value: JSONValue?) -> String { value?.stringValue ?? value?.numberText ?? "-" }
    var lines = ["schedd \(word(status[member: "version"])), serving \(SchedulerNames.service) on \(word(status[member: "bus"]))"]
    let database = status[member: "database"]
    let bytes = Int(database?[member: "bytes"]?.numberText ?? "") ?? 0
    lines.append("  Database: \(word(database?[member: "path"])) (\(byteSize(bytes)))")
    lines.append("  Pending:  \(word(status[member: "pending"])), snoozed \(word(status[member: "snoozed"]))")
    lines.append("  Next due: \(when(status[member: "nextDue"]))")
    let notifier = status[member: "notifier"]
    var shown = word(notifier?[member: "kind"])
    if let server = notifier?[member: "server"] {
        if server[member: "present"] == .bool(false) {
            shown += ", no notification server on the bus"
        } else {
            let name = [server[member: "name"], server[member: "version"]].compactMap { $0?.stringValue }.joined(separator: " ")
            shown += ", server " + (name.isEmpty ? word(server[member: "busName"]) : name)
            if let caps = server[member: "capabilities"]?.arrayValue?.compactMap(\.stringValue) {
                shown += " (" + caps.joined(separator: ", ") + ")"
            }
        }
    }
    lines.append("  Notifier: \(shown)")
    let wake = status[member: "wake"]
    let capability = word(wake?[member: "capability"])
    lines.append("  Wake:     \(capability)" + (wake?[member: "reason"]?.stringValue.map { ": \($0)" } ?? "")
                 + (capability == "armed" ? "; timer \(word(wake?[member: "timer"]))" : ""))
    let sleep = status[member: "sleep"]
    lines.append("  Sleep:    told by \(word(sleep?[member: "source"])); inhibitor \(word(sleep?[member: "inhibitor"]))")
    lines.append("  Last sleep:  \(when(sleep?[member: "lastSleep"]))")
    lines.append("  Last resume: \(when(sleep?[member: "lastResume"]))")
    if let clock { lines.append("  Clock:    \(clock.fake ? "fake" : "real"), now \(clock.local(clock.now)), zone \(clock.zoneName)") }
    Console.out(lines.joined(separator: "\n"))
}

/// `12.5 MiB`, `640 KiB`, `512 B`.
func byteSize(_ bytes: Int) -> String {
    if bytes >= 1 << 20 { return String(Double(bytes * 10 / (1 << 20)) / 10) + " MiB" }
    if bytes >= 1 << 10 { return String(bytes / (1 << 10)) + " KiB" }
    return "\(bytes) B"
}
