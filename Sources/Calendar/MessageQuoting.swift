/// `text` in double quotes for an error message, with quotes, backslashes and control characters
/// escaped (`\u001B`) and cut after 64 characters (then `…`), so a hostile value can neither flood
/// nor forge a log line. `quotedForMessage("a\"b")` is `"a\"b"`. O(min(n, 64)).
public func quotedForMessage(_ text: String) -> String {
    var out = "\""
    var count = 0
    for scalar in text.unicodeScalars {
        if count == 64 { out += "…"; break }
        count += 1
        switch scalar.value {
        case 0x22: out += "\\\""
        case 0x5C: out += "\\\\"
        case 0..<0x20, 0x7F..<0xA0:
            let hex = String(scalar.value, radix: 16, uppercase: true)
            out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}
