import ScheddBus
import Glibc
import SchedCalendar
import Scheduler
import ScheddService
import ScheddSystem

/// `schedd run` options, checked before anything starts.
struct DaemonOptions {
    var bus: BusTarget
    /// The SQLite database; its missing parent directories are created (0700).
    var databasePath: String
    /// `--notifier`; nil chooses desktop when a notification server is present, else stdout.
    var notifier: NotifierKind?
    /// `--notify-bus`: the D-Bus address the desktop notifier uses; nil = the user's session bus.
    var notifyBus: String?
    /// `--fake-clock`: the instant the fake clock starts at; nil for the real clock.
    var fakeClockStart: Instant?
    /// `--tz`: a fixed device zone (no /etc/localtime watching); nil to follow the system.
    var zoneName: String?
    /// `--allow-group`: only root, the daemon's own user and members of this group may call methods;
    /// defaults to `schedd` with `--bus system`; nil (no check) otherwise.
    var allowGroup: String?
    /// `--history-days N` / `--history-max N`: history retention (CONTRACT §5; default 90 days, 100,000).
    var retention = HistoryRetention.standard
    /// `--max-pending-per-app N`: the quota of pending schedules per app (CONTRACT §8).
    var maxPendingPerApp = Engine.defaultMaxPendingPerApp
    /// `--max-bytes-per-app N`: the quota of stored bytes of pending schedules per app (CONTRACT §8).
    var maxBytesPerApp = Engine.defaultMaxBytesPerApp
    /// `--push-distributor`, else `$UNIFIEDPUSH_DISTRIBUTOR`: the UnifiedPush distributor override.
    var pushDistributor: String?
    /// `--fold-threshold N`: more than N late notifications of one app due at once are folded into one
    /// summary (CONTRACT §11; default 3; 0 turns folding off).
    var foldThreshold = Engine.defaultFoldThreshold

    init(_ args: ParsedArguments) throws(CommandFailure) {
        bus = try BusTarget(option: args.value("bus"))
        zoneName = args.value("tz")
        if let zoneName { _ = try Zones.named(zoneName) }
        if let notifierName = args.value("notifier") {
            guard let kind = NotifierKind(rawValue: notifierName) else {
                throw .usage("--notifier needs one of \(NotifierKind.allCases.map(\.rawValue).joined(separator: ", ")), "
                             + "not '\(notifierName)'")
            }
            notifier = kind
        }
        notifyBus = args.value("notify-bus")
        if let text = args.value("max-pending-per-app") {
            guard let n = Int(text), n >= 1, n <= 100_000_000 else {
                throw .usage("--max-pending-per-app needs a whole number from 1 to 100000000, not '\(text)'")
            }
            maxPendingPerApp = n
        }
        if let text = args.value("max-bytes-per-app") {
            guard let n = Int(text), n >= 1024, n <= 1 << 40 else {
                throw .usage("--max-bytes-per-app needs a whole number of bytes from 1024 to 1099511627776, not '\(text)'")
            }
            maxBytesPerApp = n
        }
        if let text = args.value("fold-threshold") {
            guard let n = Int(text), n >= 0, n <= 1_000_000 else {
                throw .usage("--fold-threshold needs a whole number from 0 (never fold) to 1000000, not '\(text)'")
            }
            foldThreshold = n
        }
        allowGroup = args.value("allow-group") ?? (bus == .system ? "schedd" : nil)
        if allowGroup?.isEmpty == true { throw .usage("--allow-group needs a group name") }
        pushDistributor = args.value("push-distributor") ?? environment("UNIFIEDPUSH_DISTRIBUTOR")
        if pushDistributor?.isEmpty == true { pushDistributor = nil }
        if let text = args.value("fake-clock") {
            let zone = try Zones.zone(option: zoneName)
            guard let start = instant(fromTimeText: text, in: zone) else {
                throw .usage("--fake-clock needs an RFC 3339 time like 2026-03-08T01:00:00Z, not '\(text)'")
            }
            guard start.isSupported else {
                throw .usage("--fake-clock: \(start.rfc3339) is outside the supported range \(Instant.supportedRangeDescription)")
            }
            fakeClockStart = start
        }
        if args.value("history-days") != nil || args.value("history-max") != nil {
            func number(_ name: String, _ fallback: Int64) throws(CommandFailure) -> Int64 {
                guard let text = args.value(name) else { return fallback }
                guard let value = Int64(text) else { throw .usage("--\(name) needs a whole number, not '\(text)'") }
                return value
            }
            let days = try number("history-days", HistoryRetention.standard.days)
            let max = try number("history-max", Int64(HistoryRetention.standard.maxRecords))
            do { retention = try HistoryRetention(days: days, maxRecords: Int(clamping: max)) } catch {
                throw .usage(error.message)
            }
        }
        if let path = args.value("db") {
            databasePath = path
        } else {
            databasePath = DaemonOptions.defaultStateDirectory(system: bus == .system) + "/schedd.db"
        }
    }

    /// `$STATE_DIRECTORY` (systemd's StateDirectory=), else /var/lib/schedd for the system bus, else
    /// `$XDG_STATE_HOME/schedd`, else `~/.local/state/schedd` — unless that holds no database and
    /// `~/.config/schedd` does: where the user unit of earlier versions had it (its StateDirectory=, which
    /// systemd before 254 maps to the config home), so the service and a `schedd run` by hand keep using
    /// that one database (docs/units.md "Where the database is").
    static func defaultStateDirectory(system: Bool) -> String {
        if let state = environment("STATE_DIRECTORY"), !state.isEmpty {
            return String(state.split(separator: ":").first ?? Substring(state))
        }
        if system { return "/var/lib/schedd" }
        let home = environment("HOME") ?? "/root"
        let state: String
        if let xdg = environment("XDG_STATE_HOME"), xdg.hasPrefix("/") { state = xdg + "/schedd" } else {
            state = home + "/.local/state/schedd"
        }
        let config = (environment("XDG_CONFIG_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config") + "/schedd"
        if !FileSystem.exists(state + "/schedd.db") && FileSystem.exists(config + "/schedd.db") { return config }
        return state
    }
}

/// Creates `path` and its missing parents with mode 0700.
func makeDirectories(_ path: String) throws(CommandFailure) {
    var current = path.hasPrefix("/") ? "" : "."
    for component in path.split(separator: "/") {
        current += "/" + component
        do { try FileSystem.makeDirectory(current, permissions: 0o700) } catch {
            if error != .fileExists { throw .failure("cannot create directory '\(current)': \(error)") }
        }
    }
}
