/// The text of `schedd --help`.
func overallHelp() -> String {
    var lines = [
        "schedd — schedules local notifications from JSON pushes and shows them when due.",
        "",
        "Usage: schedd COMMAND [OPTIONS] [ARGUMENTS]",
        "",
        "Commands:",
    ]
    let width = commandTable.map(\.name.count).max() ?? 0
    for spec in commandTable {
        lines.append("  " + spec.name.padding(to: width) + "  " + spec.summary)
    }
    lines += [
        "",
        "Every command takes --json (JSON on stdout) and --help. Options may stand before or after arguments.",
        "Exit codes: 0 done, 1 input rejected, 2 usage error, 3 daemon unreachable or other failure.",
        "Run 'schedd COMMAND --help' for a command's options; see schedd(1) and schedd-push(5).",
    ]
    return lines.joined(separator: "\n")
}

/// The synopsis line of a command: `schedd NAME ARGUMENTS [OPTIONS]`.
func commandSynopsis(_ spec: CommandSpec) -> String {
    "schedd \(spec.name)\(spec.arguments.isEmpty ? "" : " " + spec.arguments)"
        + (spec.arguments.contains("[OPTIONS]") ? "" : " [OPTIONS]")
}

/// The label of an option in help and the man page: `--name VALUE`.
func optionLabel(_ option: OptionSpec) -> String {
    "--" + option.name + (option.valueName.map { " " + $0 } ?? "")
}

/// The text of `schedd COMMAND --help`.
func commandHelp(_ spec: CommandSpec) -> String {
    var lines = ["Usage: " + commandSynopsis(spec), "", spec.summary + "."]
    if !spec.actions.isEmpty {
        let labels = spec.actions.map { $0.name + ($0.arguments.isEmpty ? "" : " " + $0.arguments) }
        let width = labels.map(\.count).max() ?? 0
        lines += ["", "Actions:"]
        for (label, action) in zip(labels, spec.actions) {
            lines.append("  " + label.padding(to: width) + "  " + action.help)
        }
    }
    if !spec.details.isEmpty { lines += [""] + spec.details }
    let options = spec.options + commonOptions
    let labels = options.map(optionLabel)
    let width = labels.map(\.count).max() ?? 0
    lines += ["", "Options:"]
    for (label, option) in zip(labels, options) {
        lines.append("  " + label.padding(to: width) + "  " + option.help)
    }
    return lines.joined(separator: "\n")
}

extension String {
    /// The string padded with spaces on the right to `width` characters (never truncated).
    func padding(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
