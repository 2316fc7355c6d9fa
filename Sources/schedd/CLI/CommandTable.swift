import Scheduler

/// One option a subcommand accepts: `--name VALUE` (or `--name=VALUE`) when `valueName` is set,
/// else a flag.
struct OptionSpec: Sendable {
    var name: String
    var valueName: String?
    var help: String

    static func flag(_ name: String, _ help: String) -> OptionSpec { OptionSpec(name: name, valueName: nil, help: help) }
    static func value(_ name: String, _ valueName: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help)
    }
}

/// One subcommand: its name, the positional arguments it takes and its options.
struct CommandSpec: Sendable {
    var name: String
    /// What follows `schedd NAME` in the synopsis (`[FILE|-]`).
    var arguments: String
    var summary: String
    /// How many positional arguments are allowed.
    var positionalCount: ClosedRange<Int>
    var options: [OptionSpec]
    /// Extra lines for `schedd NAME --help` (examples, forms).
    var details: [String] = []
}

/// The options every subcommand takes.
let commonOptions: [OptionSpec] = [
    .flag("json", "Print JSON on stdout instead of human text"),
    .flag("help", "Show this help"),
]

/// The options of every subcommand that talks to the daemon.
let busOption = OptionSpec.value("bus", "session|system|ADDRESS",
                                 "The bus the daemon is on (default: session, $DBUS_SESSION_BUS_ADDRESS)")

/// The option of every subcommand that acts for an app (CONTRACT §8; docs/apps.md).
let appOption = OptionSpec.value("app", "APPID",
                                 "Act for this app (reverse DNS, e.g. org.example.Reminders; default: the caller's own "
                                 + "app — its Flatpak or app scope — else org.schedd.Default)")

/// The command table: every subcommand of CONTRACT §6, in the order `schedd --help` lists them.
let commandTable: [CommandSpec] = [
    CommandSpec(name: "run", arguments: "", summary: "Run the daemon", positionalCount: 0...0, options: [
        busOption,
        .value("db", "PATH", "The SQLite database (default: $XDG_STATE_HOME/schedd/schedd.db)"),
        .value("notifier", "desktop|stdout|none",
               "Where notifications go (default: desktop when a notification server is on the session bus, else stdout)"),
        .value("notify-bus", "ADDRESS", "The bus of the notification server (default: the session bus)"),
        .value("fake-clock", "RFC3339", "Start a fake clock standing still at this instant (see 'schedd clock')"),
        .value("tz", "ZONE", "The device zone (default: $TZ, else /etc/localtime)"),
        .value("allow-group", "GROUP",
               "Serve only root, schedd's own user and members of GROUP (default: schedd with --bus system, else anyone)"),
        .value("history-days", "N", "Keep history at most N days (30 or more; default 90)"),
        .value("history-max", "N", "Keep at most the newest N history records (default 100000)"),
        .value("max-pending-per-app", "N",
               "At most N pending schedules per app; a push over it is rejected (default \(Engine.defaultMaxPendingPerApp))"),
    ], details: [
        "The daemon owns \(BusNames.service) on the bus and serves \(BusNames.interface) at \(BusNames.objectPath).",
        "With --allow-group (or --bus system) it checks every caller's credentials and refuses others with",
        "org.freedesktop.DBus.Error.AccessDenied.",
    ]),
    CommandSpec(name: "push", arguments: "[FILE|-]", summary: "Hand the daemon one push, or NDJSON pushes",
                positionalCount: 0...1, options: [busOption, appOption], details: [
        "Reads standard input when FILE is '-' or missing. A file that parses as one JSON value is one push;",
        "otherwise each non-empty line is one push (NDJSON) and gets one answer line, in order.",
        "Example: echo '{\"bk\":{\"local\":{\"id\":\"run_1:a\",\"at\":\"2026-12-24T18:00\",\"title\":\"Hi\"}}}' | schedd push",
    ]),
    CommandSpec(name: "track", arguments: "EVENT", summary: "Report an event: cancels schedules with it in cancelOn",
                positionalCount: 1...1, options: [busOption, appOption, .value("data", "JSON", "Data recorded with the event")]),
    CommandSpec(name: "cancel", arguments: "ID | --run RUN", summary: "Cancel one schedule, or every schedule of a run",
                positionalCount: 0...1, options: [busOption, appOption, .value("run", "RUN", "Cancel every schedule of this run")]),
    CommandSpec(name: "list", arguments: "", summary: "List pending notifications, soonest first",
                positionalCount: 0...0, options: [
        busOption,
        appOption,
        .flag("all-apps", "List the pending notifications of every app (not for sandboxed callers)"),
        .value("limit", "N", "Show at most N (default: all)"),
        .value("offset", "N", "Skip the first N"),
    ]),
    CommandSpec(name: "history", arguments: "", summary: "Show what happened, oldest first",
                positionalCount: 0...0, options: [busOption, appOption, .value("limit", "N", "The newest N records (default 100)")]),
    CommandSpec(name: "clock", arguments: "show | set TIME | advance SPAN | zone ZONE",
                summary: "Show or move the daemon's fake clock", positionalCount: 1...Int.max, options: [busOption, appOption],
                details: [
        "show           print {\"now\",\"zone\",\"fake\"}",
        "set TIME       step the wall clock to TIME (RFC 3339, or a wall time in the device zone): what it",
        "               jumps over is late; stepping back fires nothing twice",
        "advance SPAN   let SPAN pass (90s, 15min, 2h, '1d 6h'): everything due fires on time, in order;",
        "               answers after all of it was delivered and recorded",
        "zone ZONE      change the device zone, as a change of /etc/localtime would",
    ]),
    CommandSpec(name: "calendar", arguments: "SPEC...", summary: "Show the next elapses of calendar expressions",
                positionalCount: 1...Int.max, options: [
        .value("tz", "ZONE", "Evaluate in ZONE (default: the device zone)"),
        .value("base-time", "TIME", "Start after TIME instead of now"),
        .value("iterations", "N", "Show N elapses (default 1)"),
    ], details: ["Like 'systemd-analyze calendar'. Example: schedd calendar --iterations 3 'Mon..Fri 09:00'"]),
    CommandSpec(name: "resolve", arguments: "WALL...", summary: "Resolve wall-clock times in a zone (gap, fold)",
                positionalCount: 1...Int.max, options: [.value("tz", "ZONE", "The zone (default: the device zone)")],
                details: ["Example: schedd resolve --tz America/New_York 2026-03-08T02:30 2026-11-01T01:30"]),
    testbedCommandSpec,
    CommandSpec(name: "help", arguments: "[COMMAND]", summary: "Show help for schedd or one command",
                positionalCount: 0...1, options: []),
]

/// Looks a subcommand up by exact name.
func commandSpec(named name: String) -> CommandSpec? { commandTable.first { $0.name == name } }
