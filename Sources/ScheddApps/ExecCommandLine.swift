import Scheduler
/// The command line of a desktop file's `Exec=` key, split into arguments and with its field codes
/// expanded (Desktop Entry Specification 1.5, "The Exec key").
///
/// Splitting: the value (already `string`-unescaped by `KeyFile`, so `\\\\` in the file is `\\` here)
/// is split at unquoted spaces and tabs; an argument in double quotes keeps its spaces, and inside
/// quotes `\"`, `` \` ``, `\$` and `\\` stand for the character itself. A backslash outside quotes
/// escapes the next character (tolerated; the spec asks for quoting).
///
/// Field codes (expanded in unquoted text; the spec forbids them inside quotes, where they stay literal):
///
/// | code | becomes |
/// |---|---|
/// | `%u`, `%U` | the URL to open (the deep link), or nothing when there is none |
/// | `%f`, `%F` | nothing, ever: a link is handed to an app only as a URI (CONTRACT §8 "Nothing of the host") |
/// | `%i` | `--icon ICON` (two arguments) when the entry has an `Icon`, else nothing |
/// | `%c` | the entry's (localized) name |
/// | `%k` | the desktop file's path |
/// | `%%` | `%` |
/// | `%d %D %n %N %v %m` | nothing (deprecated) |
///
/// A code that stands alone as an argument and expands to nothing removes the argument; a code
/// inside a longer argument is replaced in place. An unknown code is an error: a launcher cannot
/// know what the app expects there.
///
/// The link is never where it could be read as an option or a file: a link that is not an absolute
/// URI (`scheme:…`, which starts with a letter, so never with `-` or `@`) is refused, and so is a
/// `file:` link for a Flatpak-exported command line (`flatpak run … --file-forwarding APPID @@u %U @@`):
/// Flatpak would grant the app that file through the document portal. (Pushes of sandboxed apps
/// cannot carry `file:` links at all; this also covers schedules an unsandboxed caller made for a
/// Flatpak app, and rows stored before the rule.)
///
/// Example: `Exec=reminders --new-window %U` with `reminders://todo/42` → `["reminders",
/// "--new-window", "reminders://todo/42"]`; without a URL → `["reminders", "--new-window"]`.
/// O(length of the value).
public enum ExecCommandLine {
    /// The argument vector for `exec` of `entry`, opening `url` (nil: just start the app).
    public static func arguments(_ exec: String, entry: DesktopEntry, url: String?) throws(ExecCommandLineError) -> [String] {
        let tokens = try split(exec)
        if let url { try checkLink(url, fileForwarding: tokens.contains { !$0.quoted && $0.text == "--file-forwarding" }) }
        var out: [String] = []
        for token in tokens {
            if !token.quoted, let codeArgs = try standalone(token.text, entry: entry, url: url) {
                out += codeArgs
                continue
            }
            out.append(token.quoted ? token.text : try inline(token.text, entry: entry, url: url))
        }
        guard let program = out.first, !program.isEmpty else { throw ExecCommandLineError("Exec names no program") }
        return out
    }

    /// One argument before expansion: its text and whether any of it was quoted.
    struct Token: Equatable { var text: String; var quoted: Bool }

    static func split(_ exec: String) throws(ExecCommandLineError) -> [Token] {
        var tokens: [Token] = []
        var current = ""
        var inToken = false, quoted = false, inQuotes = false
        var iterator = exec.makeIterator()
        while let ch = iterator.next() {
            if inQuotes {
                switch ch {
                case "\"": inQuotes = false
                case "\\":
                    guard let next = iterator.next() else { throw ExecCommandLineError("Exec ends inside an escape") }
                    if next != "\"" && next != "`" && next != "$" && next != "\\" { current.append("\\") }
                    current.append(next)
                default: current.append(ch)
                }
                continue
            }
            switch ch {
            case " ", "\t", "\n":
                if inToken { tokens.append(Token(text: current, quoted: quoted)) }
                current = ""; inToken = false; quoted = false
            case "\"":
                inQuotes = true; inToken = true; quoted = true
            case "\\":
                guard let next = iterator.next() else { throw ExecCommandLineError("Exec ends inside an escape") }
                current.append(next); inToken = true
            default:
                current.append(ch); inToken = true
            }
        }
        if inQuotes { throw ExecCommandLineError("Exec has an unterminated quote") }
        if inToken { tokens.append(Token(text: current, quoted: quoted)) }
        return tokens
    }

    /// Refuses a link that could be read as an option or a path, or that would forward a file to a Flatpak app.
    static func checkLink(_ url: String, fileForwarding: Bool) throws(ExecCommandLineError) {
        guard let scheme = SandboxedPushRules.scheme(of: url) else {
            throw ExecCommandLineError("the link is not an absolute URL (scheme:…), so it is not passed to the app")
        }
        if fileForwarding && SandboxedPushRules.hostSchemes.contains(scheme) {
            throw ExecCommandLineError("a file: link is not passed to a Flatpak app (its file forwarding would grant it the file)")
        }
    }

    /// The expansion of an argument that is exactly one field code; nil when it is not one.
    static func standalone(_ text: String, entry: DesktopEntry, url: String?) throws(ExecCommandLineError) -> [String]? {
        guard text.count == 2, text.first == "%", let code = text.last else { return nil }
        switch code {
        case "u", "U": return url.map { [$0] } ?? []
        case "f", "F": return []
        case "i": return entry.icon.map { ["--icon", $0] } ?? []
        case "d", "D", "n", "N", "v", "m": return []
        case "%", "c", "k": return nil
        default: throw ExecCommandLineError("Exec has an unknown field code %\(code)")
        }
    }

    /// `text` with every field code replaced in place.
    static func inline(_ text: String, entry: DesktopEntry, url: String?) throws(ExecCommandLineError) -> String {
        guard text.contains("%") else { return text }
        var out = ""
        var iterator = text.makeIterator()
        while let ch = iterator.next() {
            guard ch == "%" else { out.append(ch); continue }
            guard let code = iterator.next() else { throw ExecCommandLineError("Exec ends with a lone %") }
            switch code {
            case "%": out.append("%")
            case "u", "U": out += url ?? ""
            case "f", "F": break
            case "i": out += entry.icon ?? ""
            case "c": out += entry.name
            case "k": out += entry.path
            case "d", "D", "n", "N", "v", "m": break
            default: throw ExecCommandLineError("Exec has an unknown field code %\(code)")
            }
        }
        return out
    }
}

/// An `Exec=` value schedd cannot turn into a command (the message names the problem).
public struct ExecCommandLineError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
