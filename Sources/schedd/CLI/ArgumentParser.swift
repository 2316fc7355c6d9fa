/// A command line after parsing against `commandTable`.
struct ParsedArguments: Sendable, Equatable {
    var command: String
    /// Option values by name (without dashes); flags map to "".
    var options: [String: String]
    var positionals: [String]
    /// Every value of a repeatable option, in order (`--cancel-on A --cancel-on B`).
    var repeated: [String: [String]] = [:]

    /// Every value given for `name` (repeatable options; others hold at most one).
    func values(_ name: String) -> [String] { repeated[name] ?? (options[name].map { [$0] } ?? []) }

    /// Whether the flag or option was given.
    func has(_ name: String) -> Bool { options[name] != nil }
    /// The value of an option, or nil.
    func value(_ name: String) -> String? { options[name] }
    var json: Bool { has("json") }

    /// The value of an option as a non-negative integer, or `defaultValue` when absent.
    func count(_ name: String, default defaultValue: Int?) throws(CommandFailure) -> Int? {
        guard let text = value(name) else { return defaultValue }
        guard let n = Int(text), n >= 0, n <= Int(UInt32.max) else {
            throw .usage("--\(name) needs a non-negative integer, not '\(text)'")
        }
        return n
    }
}

/// Parses `schedd` arguments (without the program name) against `commandTable`.
///
/// Rules: the first word is the subcommand (`-h`/`--help` alone means `help`); options may stand
/// before or after positional arguments, as `--name VALUE` or `--name=VALUE`; `-h` is `--help`;
/// `--` ends options; `-` alone is a positional (standard input). A repeated option keeps the last
/// value, except for repeatable options (`values(_:)`). Unknown subcommands and options are usage errors with a "did you mean" hint. The
/// positional count is checked unless `--help` was given.
func parseArguments(_ arguments: [String]) throws(CommandFailure) -> ParsedArguments {
    guard let first = arguments.first else { return ParsedArguments(command: "help", options: [:], positionals: []) }
    if first == "--help" || first == "-h" {
        return ParsedArguments(command: "help", options: [:], positionals: [])
    }
    if first == "--version" { return ParsedArguments(command: "version", options: [:], positionals: []) }
    guard let spec = commandSpec(named: first) else {
        let names = commandTable.map(\.name)
        var message = "unknown command '\(first)'"
        if !first.hasPrefix("-"), let hint = closestMatch(to: first, among: names) {
            message += "; did you mean '\(hint)'?"
        } else if first.hasPrefix("-") {
            message = "expected a command before '\(first)'"
        }
        throw .usage(message + " (see 'schedd --help')")
    }
    let options = spec.options + commonOptions
    var parsed = ParsedArguments(command: spec.name, options: [:], positionals: [])
    var index = 1
    var optionsEnded = false
    // What stood before each positional: the option whose value it follows, or another positional.
    var before: [Preceding] = []
    var last = Preceding.none
    while index < arguments.count {
        let word = arguments[index]
        index += 1
        if optionsEnded || word == "-" || !word.hasPrefix("-") {
            parsed.positionals.append(word)
            before.append(last)
            last = .positional(word)
            continue
        }
        if word == "--" { optionsEnded = true; continue }
        if word == "-h" { parsed.options["help"] = ""; continue }
        guard word.hasPrefix("--") else {
            if spec.name == "testbed", !parsed.positionals.isEmpty {
                throw .usage("testbed runs COMMAND after '--': schedd testbed [OPTIONS] -- "
                             + (parsed.positionals + [word]).joined(separator: " ") + " …")
            }
            throw .usage("unknown option '\(word)' for 'schedd \(spec.name)' (options are spelled --name)")
        }
        var name = String(word.dropFirst(2))
        var inlineValue: String?
        if let eq = name.firstIndex(of: "=") {
            inlineValue = String(name[name.index(after: eq)...])
            name = String(name[..<eq])
        }
        guard let option = options.first(where: { $0.name == name }) else {
            if spec.name == "testbed", !parsed.positionals.isEmpty {
                throw .usage("testbed runs COMMAND after '--': schedd testbed [OPTIONS] -- "
                             + (parsed.positionals + [word]).joined(separator: " ") + " …")
            }
            var message = "unknown option '--\(name)' for 'schedd \(spec.name)'"
            if let hint = closestMatch(to: name, among: options.map(\.name)) { message += "; did you mean '--\(hint)'?" }
            throw .usage(message)
        }
        if let valueName = option.valueName {
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count {
                value = arguments[index]
                index += 1
            } else {
                throw .usage("option '--\(name)' needs a value (\(valueName))")
            }
            parsed.options[name] = value
            if option.repeatable { parsed.repeated[name, default: []].append(value) }
            last = inlineValue == nil ? .value(option: option, value: value) : .none
        } else {
            if inlineValue != nil { throw .usage("option '--\(name)' takes no value") }
            parsed.options[name] = ""
            last = .none
        }
    }
    if parsed.has("help") { return parsed }
    let n = parsed.positionals.count
    if !spec.positionalCount.contains(n) {
        let usage = "usage: schedd \(spec.name) \(spec.arguments)"
        if n < spec.positionalCount.lowerBound { throw .usage("missing \(missingName(spec)); \(usage)") }
        let extra = spec.positionalCount.upperBound
        let word = parsed.positionals[extra]
        switch before[extra] {
        case .value(let option, let value):
            let what = option.valueName.map(valueKind) ?? "value"
            throw .usage("unexpected argument '\(word)': '\(value) \(word)' is one \(what): quote it "
                         + "(--\(option.name) '\(value) \(word)')")
        case .positional(let previous) where extra == 1 && spec.positionalCount == 1...1:
            let name = positionalName(spec)
            throw .usage("unexpected argument '\(word)': '\(previous) \(word)' is one \(name): quote it; \(usage)")
        default:
            throw .usage("unexpected argument '\(word)'; \(usage)")
        }
    }
    return parsed
}

/// What came before a positional argument on the command line.
private enum Preceding {
    case none
    /// It directly follows the value of `option` (`--in 5 minutes`: `minutes` follows `5`).
    case value(option: OptionSpec, value: String)
    case positional(String)
}

/// The first positional of `spec` by its synopsis name (`TITLE`, `EVENT`, `SPEC`).
private func positionalName(_ spec: CommandSpec) -> String {
    let first = spec.arguments.split(separator: " ").first.map(String.init) ?? "argument"
    return first.trimmingCharacters(in: "[]().") 
}

/// What a missing positional is called in the message: `TITLE`, or the action words of `clock`.
private func missingName(_ spec: CommandSpec) -> String {
    if !spec.actions.isEmpty { return "what to do (" + spec.actions.map(\.name).joined(separator: ", ") + ")" }
    return positionalName(spec)
}

/// How a message names an option's value: `SPAN` is a span, `WHEN` and `TIME` a time.
private func valueKind(_ valueName: String) -> String {
    switch valueName {
    case "SPAN": "span"
    case "WHEN", "TIME": "time"
    case "SPEC": "calendar expression"
    default: valueName
    }
}

extension String {
    /// Without the leading and trailing characters in `set`.
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s.removeFirst() }
        while let c = s.last, set.contains(c) { s.removeLast() }
        return String(s)
    }
}
