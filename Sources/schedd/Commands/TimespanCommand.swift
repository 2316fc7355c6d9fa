import SchedCalendar
import Scheduler

/// `schedd timespan SPAN...`: how systemd reads time spans, without a daemon — line for line the
/// output of `systemd-analyze timespan` (systemd 252), which stops at the first span it rejects
/// (exit 1). With `--json`: one element per span, going on past a rejected one, as `calendar` does:
/// `[{"span","microseconds","human"} | {"span","error"}, …]` (`microseconds` null for infinity).
func runTimespanCommand(_ args: ParsedArguments) -> ExitCode {
    var results: [JSONValue] = []
    var rejected = false
    let mu = localeIsUTF8() ? "μ" : "u"
    for (index, text) in args.positionals.enumerated() {
        let value: UInt64
        do {
            value = try TimeSpan.parse(text)
        } catch {
            rejected = true
            results.append(.object([JSONMember("span", .string(text)), JSONMember("error", .string(error.description))]))
            if args.json { continue }
            Console.err("schedd: Failed to parse time span '\(text)': \(error.systemdReason)")
            return .rejected
        }
        let human = TimeSpan.format(value)
        results.append(.object([
            JSONMember("span", .string(text)),
            JSONMember("microseconds", value == TimeSpan.infinity ? .null : .number(String(value))),
            JSONMember("human", .string(human)),
        ]))
        if !args.json {
            var block = ["Original: " + text, "      \(mu)s: \(value)", "   Human: " + human].joined(separator: "\n")
            if index < args.positionals.count - 1 { block += "\n" }
            Console.out(block)
        }
    }
    if args.json { Console.out(JSONValue.array(results).serialized()) }
    return rejected ? .rejected : .success
}

/// Whether the locale's character set is UTF-8, as systemd decides whether to print `μ` or `u`:
/// the first non-empty of `LC_ALL`, `LC_CTYPE`, `LANG` names UTF-8 (`C.UTF-8`, `de_DE.utf8`).
func localeIsUTF8() -> Bool {
    for name in ["LC_ALL", "LC_CTYPE", "LANG"] {
        guard let value = environment(name), !value.isEmpty else { continue }
        let lower = value.lowercased()
        return lower.contains("utf-8") || lower.contains("utf8")
    }
    return false
}
