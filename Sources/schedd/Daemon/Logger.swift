/// The daemon's log: structured journal entries (with `SCHEDD_ID` and `SCHEDD_RUN` fields) when
/// stderr is the journal, plain `schedd: level: message` lines on stderr otherwise.
///
/// Notification titles and bodies are private: callers log ids, never payload text.
final class Logger {
    enum Level: Int, Sendable {
        case error = 3, warning = 4, notice = 5, info = 6, debug = 7
        var label: String {
            switch self {
            case .error: "error"
            case .warning: "warning"
            case .notice: "notice"
            case .info: "info"
            case .debug: "debug"
            }
        }
    }

    private let toJournal: Bool

    init(toJournal: Bool = stderrIsJournal()) { self.toJournal = toJournal }

    func log(_ level: Level, _ message: String, id: String? = nil, run: String? = nil) {
        if toJournal {
            var fields = ["MESSAGE=\(message)", "PRIORITY=\(level.rawValue)", "SYSLOG_IDENTIFIER=schedd"]
            if let id { fields.append("SCHEDD_ID=\(id)") }
            if let run { fields.append("SCHEDD_RUN=\(run)") }
            journalSend(fields)
        } else {
            var line = "schedd: \(level.label): \(message)"
            if let id { line += " [id=\(id)]" }
            Console.err(line)
        }
    }

    func info(_ message: String, id: String? = nil, run: String? = nil) { log(.info, message, id: id, run: run) }
    func warning(_ message: String, id: String? = nil, run: String? = nil) { log(.warning, message, id: id, run: run) }
    func error(_ message: String, id: String? = nil, run: String? = nil) { log(.error, message, id: id, run: run) }
}
