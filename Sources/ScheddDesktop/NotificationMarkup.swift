/// Escaping for the body of a freedesktop notification (Desktop Notifications spec 1.2, "Markup").
///
/// A server that lists `body-markup` in GetCapabilities parses the body as a small XML subset
/// (`<b>`, `<i>`, `<u>`, `<a href>`, `<img>`), so text a sender meant literally — `a < b & c` — must be
/// escaped as XML character data. A server without `body-markup` shows the body verbatim, so it is
/// sent untouched (escaping it there would show `&amp;` on screen).
public enum NotificationMarkup {
    /// Escapes the five XML special characters: `&`→`&amp;`, `<`→`&lt;`, `>`→`&gt;`, `"`→`&quot;`,
    /// `'`→`&apos;`. Everything else (newlines included) is kept.
    ///
    /// `escape("Use <b> & \"x\"") == "Use &lt;b&gt; &amp; &quot;x&quot;"`. O(n) in the UTF-8 length.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
