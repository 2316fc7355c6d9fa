/// A parsed key file: the `[Group]` / `Key=Value` format of the Desktop Entry Specification (§3),
/// which `.flatpak-info` and `.desktop` files share (GLib's GKeyFile).
///
/// Rules (tolerant where the spec allows, strict where a wrong reading would mislead):
/// - lines are split on `\n` (a trailing `\r` is dropped); blank lines and lines starting with `#`
///   are ignored;
/// - `[Name]` starts a group; entries before the first group are ignored;
/// - `Key=Value`: whitespace around `=` is dropped, the value is kept verbatim (escapes are decoded
///   only by `string(_:in:)`); `Key[locale]=Value` is a localized variant;
/// - a key given twice in a group: the first wins (GKeyFile keeps the last; the first is safer for
///   `.flatpak-info`, where Flatpak writes `[Application] name` once and at the top);
/// - a group given twice: its entries are merged, first value wins;
/// - invalid UTF-8 is decoded with replacement characters; lines that are none of the above are ignored.
///
/// Cost: O(size). Input is capped by the readers (`maxBytes`), never here.
public struct KeyFile: Sendable, Hashable {
    /// group → key (with `[locale]` suffix when present) → raw value.
    public private(set) var groups: [String: [String: String]] = [:]

    /// The largest key file schedd reads (desktop files are a few KiB; `.flatpak-info` less): 1 MiB.
    public static let maxBytes = 1 << 20

    public init(bytes: some Collection<UInt8>) {
        var current: String?
        // Split bytes, not Characters: Swift treats "\r\n" as one Character.
        for rawLine in Array(bytes).split(separator: UInt8(ascii: "\n")) {
            let lineBytes = rawLine.last == UInt8(ascii: "\r") ? rawLine.dropLast() : rawLine
            let line = Substring(String(decoding: lineBytes, as: UTF8.self))
            let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if trimmed.hasPrefix("[") {
                guard let close = trimmed.firstIndex(of: "]") else { continue }
                let name = String(trimmed[trimmed.index(after: trimmed.startIndex)..<close])
                current = name
                if groups[name] == nil { groups[name] = [:] }
                continue
            }
            guard let group = current, let eq = trimmed.firstIndex(of: "=") else { continue }
            let key = trimmed[..<eq].trimmingSpaces()
            guard !key.isEmpty else { continue }
            let value = trimmed[trimmed.index(after: eq)...].drop(while: { $0 == " " || $0 == "\t" })
            if groups[group]?[String(key)] == nil { groups[group]?[String(key)] = String(value) }
        }
    }

    /// The raw value of `key` in `group`, nil when absent.
    public func raw(_ key: String, in group: String) -> String? { groups[group]?[key] }

    /// A `string` value with the spec's escapes decoded (`\s` space, `\n`, `\t`, `\r`, `\\`; an unknown
    /// escape is kept as written).
    public func string(_ key: String, in group: String) -> String? {
        raw(key, in: group).map(Self.unescape)
    }

    /// A `localestring`: the best of `Key[lang_COUNTRY@MODIFIER]`, `Key[lang_COUNTRY]`, `Key[lang@MODIFIER]`,
    /// `Key[lang]`, then `Key` (spec §5), for `locale` as in `LC_MESSAGES` (`de_DE.UTF-8@euro`; the
    /// encoding is ignored). nil locale → `Key`.
    public func localizedString(_ key: String, in group: String, locale: String?) -> String? {
        for candidate in Self.localeCandidates(locale) {
            if let value = string("\(key)[\(candidate)]", in: group) { return value }
        }
        return string(key, in: group)
    }

    /// A `boolean`: `true` or `false` (the spec's only values); anything else is nil.
    public func bool(_ key: String, in group: String) -> Bool? {
        switch raw(key, in: group)?.trimmingSpaces() {
        case "true"?: true
        case "false"?: false
        default: nil
        }
    }

    /// `\s` `\n` `\t` `\r` `\\` decoded; other escapes kept (the Exec parser decodes its own level).
    static func unescape(_ value: String) -> String {
        guard value.contains("\\") else { return value }
        var out = ""
        var escaping = false
        for ch in value {
            if escaping {
                switch ch {
                case "s": out.append(" ")
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                case "\\": out.append("\\")
                default: out.append("\\"); out.append(ch)
                }
                escaping = false
            } else if ch == "\\" {
                escaping = true
            } else {
                out.append(ch)
            }
        }
        if escaping { out.append("\\") }
        return out
    }

    /// Locale variants to try, most specific first: `de_DE@euro`, `de_DE`, `de@euro`, `de`.
    static func localeCandidates(_ locale: String?) -> [String] {
        guard var text = locale, !text.isEmpty, text != "C", text != "POSIX" else { return [] }
        var modifier: Substring?
        if let at = text.firstIndex(of: "@") {
            modifier = text[text.index(after: at)...]
            text = String(text[..<at])
        }
        if let dot = text.firstIndex(of: ".") { text = String(text[..<dot]) }
        let lang = text.split(separator: "_", maxSplits: 1).first.map(String.init) ?? text
        let hasCountry = text.contains("_")
        var out: [String] = []
        if let modifier, hasCountry { out.append("\(text)@\(modifier)") }
        if hasCountry { out.append(text) }
        if let modifier { out.append("\(lang)@\(modifier)") }
        out.append(lang)
        return out
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    func trimmingSpaces() -> String {
        let text = String(self)
        guard let first = text.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = text.lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        return String(text[first...last])
    }
}
