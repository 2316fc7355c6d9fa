import ScheddClientCore
import Scheduler

/// One option a subcommand accepts: `--name VALUE` (or `--name=VALUE`) when `valueName` is set,
/// else a flag. The same table drives the parser, `--help`, the man page and the shell completions.
struct OptionSpec: Sendable {
    var name: String
    var valueName: String?
    var help: String
    /// Values a completion offers (`low`, `normal`, `critical`); empty when free-form.
    var choices: [String] = []
    /// Whether the option may be given more than once, each value kept (`--cancel-on A --cancel-on B`);
    /// otherwise a repeated option keeps the last value.
    var repeatable = false

    static func flag(_ name: String, _ help: String) -> OptionSpec { OptionSpec(name: name, valueName: nil, help: help) }
    static func value(_ name: String, _ valueName: String, _ help: String, choices: [String] = [],
                      repeatable: Bool = false) -> OptionSpec {
        OptionSpec(name: name, valueName: valueName, help: help, choices: choices, repeatable: repeatable)
    }
}

/// A word that selects what a subcommand does (`clock show`, `clock set TIME`).
struct ActionSpec: Sendable {
    var name: String
    /// What follows the action word (`TIME`), or "".
    var arguments: String
    var help: String
}

/// What a positional argument is, for completions: a file (`push FILE`), a pending schedule's id
/// (`cancel ID`) or free text.
enum PositionalKind: Sendable { case text, file, id }

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
    /// Action words, when the first positional is one (`clock`).
    var actions: [ActionSpec] = []
    var positionalKind: PositionalKind = .text
    /// Whether the command talks to the daemon (then it takes `--bus`); `calendar`, `resolve`,
    /// `timespan` and `timestamp` do not.
    var usesDaemon: Bool { options.contains { $0.name == "bus" } }
}

/// The options every subcommand takes.
let commonOptions: [OptionSpec] = [
    .flag("json", "Print JSON on stdout instead of human text"),
    .flag("help", "Show this help"),
]

/// The options of every subcommand that talks to the daemon.
let busOption = OptionSpec.value("bus", "session|system|ADDRESS",
                                 "The bus the daemon is on (default: session, $DBUS_SESSION_BUS_ADDRESS)",
                                 choices: ["session", "system"])

/// `--limit N` of `list` and `history`: 0 means no limit, the same for both (and for the D-Bus API).
func limitOption(default text: String) -> OptionSpec {
    .value("limit", "N", "Show at most N (0: all; default: \(text))")
}

/// The option of every subcommand that acts for an app (CONTRACT §8; docs/apps.md).
let appOption = OptionSpec.value("app", "APPID",
                                 "Act for this app (reverse DNS, e.g. org.example.Reminders; default: the caller's own "
                                 + "app — its Flatpak or app scope — else org.schedd.Default)")

/// The command table: every subcommand of CONTRACT §6, in the order `schedd --help` lists them.
/// To add a command: append a `CommandSpec` here and a `case` in `runCommandLine`; help, the man
/// page and the completions follow from the table.
let commandTable: [CommandSpec] = [
    CommandSpec(name: "run", arguments: "", summary: "Run the daemon", positionalCount: 0...0, options: [
        busOption,
        .value("db", "PATH", "The SQLite database (default: $XDG_STATE_HOME/schedd/schedd.db)"),
        .value("notifier", "desktop|stdout|none",
               "Where notifications go (default: desktop when a notification server is on the session bus, else stdout)",
               choices: ["desktop", "stdout", "none"]),
        .value("notify-bus", "ADDRESS", "The bus of the notification server (default: the session bus)"),
        .value("fake-clock", "TIME", "Start a fake clock standing still at TIME (RFC 3339; see 'schedd clock')"),
        .value("tz", "ZONE", "The device zone (default: $TZ, else /etc/localtime)"),
        .value("allow-group", "GROUP",
               "Serve only root, schedd's own user and members of GROUP (default: schedd with --bus system, else anyone)"),
        .value("history-days", "N", "Keep history at most N days (30 or more; default 90)"),
        .value("history-max", "N", "Keep at most the newest N history records (default 100000)"),
        .value("push-distributor", "NAME",
               "The UnifiedPush distributor apps register with (a bus name or its part after org.unifiedpush.Distributor.; "
               + "default: $UNIFIEDPUSH_DISTRIBUTOR, else the rule in docs/receiving-pushes.md)"),
        .value("max-pending-per-app", "N",
               "At most N pending schedules per app; a push over it is rejected (default \(Engine.defaultMaxPendingPerApp))"),
        .value("max-bytes-per-app", "N",
               "At most N bytes of pending schedules per app (texts and id, plus 64 per schedule); a push over it is "
               + "rejected (default \(Engine.defaultMaxBytesPerApp), 256 MiB)"),
        .value("fold-threshold", "N",
               "More than N late notifications of one app due at once (after sleep, start or a clock jump) are shown "
               + "as one summary (default \(Engine.defaultFoldThreshold); 0: never fold; alarms are never folded)"),
    ], details: [
        "The daemon owns \(SchedulerNames.service) on the bus and serves \(SchedulerNames.interface) at \(SchedulerNames.objectPath).",
        "With --allow-group (or --bus system) it checks every caller's credentials and refuses others with",
        "\(SchedulerNames.accessDenied).",
    ]),
    CommandSpec(name: "add", arguments: "TITLE (--at WHEN | --in SPAN | --calendar SPEC)",
                summary: "Schedule a notification from the command line", positionalCount: 1...1, options: [
        busOption, appOption,
        .value("at", "WHEN", "When: a push's at (2026-12-24T18:00, …Z, …+01:00) or a systemd timestamp (tomorrow 18:00, @1767225600); a time of day alone is its next occurrence"),
        .value("in", "SPAN", "After a time span from now (90s, 15min, '1h 30min')"),
        .value("calendar", "SPEC", "Repeating, at a calendar expression (Mon..Fri 09:00, daily)"),
        .value("body", "TEXT", "The notification's body (plain text)"),
        .value("id", "ID", "The schedule's id (default: a new cli_… id, printed); an id blocked by a cancel is an error"),
        .flag("replace", "With --id: lift the block a cancel left on the id (its tombstone) and schedule it"),
        .value("cancel-on", "EVENT", "Cancel it when EVENT is tracked (repeatable)", repeatable: true),
        .value("urgency", "LEVEL", "low, normal (default) or critical", choices: ["low", "normal", "critical"]),
        .value("grace", "SPAN", "How late it may still be shown (default: the daemon's)"),
        .value("action", "ID=TITLE", "A button (repeatable, at most 3)", repeatable: true),
        .value("snooze", "SPAN", "A Snooze button for SPAN (1min to 7d; repeatable, at most 2)", repeatable: true),
        .value("icon", "NAME", "The notification's icon (a freedesktop icon name or an absolute path)"),
        .value("deep-link", "URL", "What opening the notification opens (an absolute URL, myapp://item/42)"),
        .value("until", "WHEN", "With --calendar: no occurrence after WHEN"),
        .value("tz", "ZONE", "Pin a wall-clock --at or --calendar to ZONE (default: floating in the device zone)"),
    ], details: [
        "Answers as push does: 'ID: scheduled, next …' ({\"id\",\"status\",\"next\"} with --json).",
        "WHEN is read as a push's at first, then as a systemd timestamp (systemd-analyze timestamp) in",
        "the daemon's device zone and clock; a WHEN that is neither, such as 'Fri 09:00', is read as a calendar",
        "expression and its next elapse is used, once. A time of day alone (09:00) is its next occurrence, as",
        "with at(1). A time in the past, an --until in the past, a calendar with no elapse left and an --id",
        "blocked by an earlier cancel (a tombstone, kept 30 days) are errors (exit 1); --replace lifts the block.",
        "So are a push the daemon answers missed (its time passed on the way) and the same push again after",
        "it was replaced under that --id (--replace schedules it).",
        "Examples: schedd add 'Stand up' --in 25min",
        "          schedd add 'Dinner' --at 'tomorrow 18:00' --body 'Table at 7'",
        "          schedd add 'Standup' --calendar 'Mon..Fri 09:30' --cancel-on vacation",
    ]),
    CommandSpec(name: "push", arguments: "[FILE|-]", summary: "Hand the daemon one push, or NDJSON pushes",
                positionalCount: 0...1, options: [busOption, appOption], details: [
        "Reads standard input when FILE is '-' or missing. An input whose first line ends inside a JSON value",
        "(a line holding only '{') is one push written over several lines; an error in it is named by line and",
        "column. Otherwise each non-empty line is one push (NDJSON) and gets one answer line, in order.",
        "The push format is described in schedd-push(5).",
        "Example: echo '{\"bk\":{\"local\":{\"id\":\"run_1:a\",\"at\":\"2026-12-24T18:00\",\"title\":\"Hi\"}}}' | schedd push",
    ], positionalKind: .file),
    CommandSpec(name: "track", arguments: "EVENT", summary: "Report an event: cancels schedules with it in cancelOn",
                positionalCount: 1...1, options: [busOption, appOption, .value("data", "JSON", "Data recorded with the event")]),
    CommandSpec(name: "cancel", arguments: "ID | --run RUN", summary: "Cancel one schedule, or every schedule of a run",
                positionalCount: 0...1, options: [busOption, appOption, .value("run", "RUN", "Cancel every schedule of this run")],
                positionalKind: .id),
    CommandSpec(name: "list", arguments: "", summary: "List pending notifications, soonest first",
                positionalCount: 0...0, options: [
        busOption, appOption, .flag("all-apps", "List the pending notifications of every app, with an APP column (not for sandboxed callers)"),
        limitOption(default: "all"), .value("offset", "N", "Skip the first N"),
    ], details: [
        "Columns as systemctl list-timers: NEXT, LEFT, LAST (the last firing), PASSED, then REPEAT (a",
        "repeating schedule's calendar, '-' for a one-shot), ID and TITLE; times in the daemon's device zone.",
        "Snoozed notifications are listed too, REPEAT '(snoozed)': NEXT is when they come back, LAST the",
        "occurrence snoozed. A footer says when other apps have items not shown (--all-apps shows them).",
    ]),
    CommandSpec(name: "history", arguments: "", summary: "Show what happened, oldest first",
                positionalCount: 0...0, options: [
        busOption, appOption, .flag("all-apps", "Show the history of every app, with an APP column (not for sandboxed callers)"),
        limitOption(default: "100, the newest"),
    ], details: [
        "A footer says when other apps have records among the newest N that are not shown (--all-apps shows them).",
    ]),
    CommandSpec(name: "status", arguments: "", summary: "Show how the daemon is: database, counts, notifier, wake, sleep",
                positionalCount: 0...0, options: [busOption, appOption], details: [
        "Version, the database and its size, pending and snoozed counts, the next due, the notifier and its",
        "notification server (name, capabilities), whether wake: true schedules can wake the machine (and why",
        "not), the last sleep and resume seen (logind or the clocks) and the bus served. Exit 3 when no daemon",
        "answers. For a sandboxed caller the counts are its own app's.",
    ]),
    CommandSpec(name: "clock", arguments: "show | set TIME | advance SPAN | next | sleep SPAN | zone ZONE",
                summary: "Show or move the daemon's fake clock", positionalCount: 1...Int.max, options: [busOption, appOption],
                actions: [
        ActionSpec(name: "show", arguments: "", help: "print the daemon's clock: {\"now\",\"zone\",\"fake\"}"),
        ActionSpec(name: "set", arguments: "TIME",
                   help: "step the wall clock to TIME (RFC 3339 or a systemd timestamp): what it jumps over is late; stepping back fires nothing twice"),
        ActionSpec(name: "advance", arguments: "SPAN",
                   help: "let SPAN pass (90s, 15min, '1d 6h'): everything due fires on time, in order; answers after all of it was delivered and recorded"),
        ActionSpec(name: "next", arguments: "", help: "advance to the next due instant and deliver what is due then"),
        ActionSpec(name: "sleep", arguments: "SPAN",
                   help: "the machine sleeps SPAN and resumes: what fell due is late, shown at once, folded per app (more than the fold threshold → one summary); recorded as the last sleep/resume"),
        ActionSpec(name: "zone", arguments: "ZONE", help: "change the device zone, as a change of /etc/localtime would"),
    ]),
    CommandSpec(name: "calendar", arguments: "SPEC...", summary: "Show the next elapses of calendar expressions",
                positionalCount: 1...Int.max, options: [
        .value("tz", "ZONE", "Evaluate and print in ZONE (default: the device zone, $TZ)"),
        .value("base-time", "TIME", "Start after TIME (RFC 3339 or a systemd timestamp) instead of now"),
        .value("iterations", "N", "Show N elapses (default 1)"),
    ], details: ["Like 'systemd-analyze calendar', line for line. Example: schedd calendar --iterations 3 'Mon..Fri 09:00'"]),
    CommandSpec(name: "resolve", arguments: "WALL...", summary: "Resolve wall-clock times in a zone (gap, fold)",
                positionalCount: 1...Int.max, options: [.value("tz", "ZONE", "The zone (default: the device zone)")],
                details: ["Example: schedd resolve --tz America/New_York 2026-03-08T02:30 2026-11-01T01:30"]),
    CommandSpec(name: "timespan", arguments: "SPAN...", summary: "Check time spans as systemd parses them",
                positionalCount: 1...Int.max, options: [],
                details: ["Like 'systemd-analyze timespan', line for line. Example: schedd timespan '1h 30min' 90s"]),
    CommandSpec(name: "timestamp", arguments: "TIMESTAMP...", summary: "Check timestamps as systemd parses them",
                positionalCount: 1...Int.max, options: [
        .value("base-time", "TIME", "Read relative timestamps (now, +5min, tomorrow) from TIME instead of now"),
    ], details: ["Like 'systemd-analyze timestamp', line for line. Example: schedd timestamp 'tomorrow 18:00' @1767225600"]),
    CommandSpec(name: "check", arguments: "", summary: "Check the database file for damage (also while the daemon runs)",
                positionalCount: 0...0, options: [
        .value("db", "PATH", "The database (default: the daemon's, as 'schedd run' chooses it)"),
        .value("bus", "session|system", "Whose default database: the user's (session) or the system daemon's"),
        .flag("full", "Also compare every index with its table (integrity_check; slower)"),
    ], details: ["Exit 0 when sound, 1 with each damaged table's problems. See docs/store.md, 'What is checked when'."]),
    testbedCommandSpec,
    CommandSpec(name: "completion", arguments: "bash|zsh|fish", summary: "Print the shell completion script for bash, zsh or fish",
                positionalCount: 1...1, options: [], details: [
        "Installed by scripts/install.sh; or: source <(schedd completion bash)",
    ], actions: CompletionShell.allCases.map {
        ActionSpec(name: $0.rawValue, arguments: "", help: "print the completion script for \($0.rawValue)")
    }),
    CommandSpec(name: "help", arguments: "[COMMAND]", summary: "Show help for schedd or one command",
                positionalCount: 0...1, options: [.flag("man", "Print the manual page schedd(1) as roff")]),
]

/// Looks a subcommand up by exact name.
func commandSpec(named name: String) -> CommandSpec? { commandTable.first { $0.name == name } }
