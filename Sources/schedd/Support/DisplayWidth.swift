/// How many terminal columns `text` takes, as `wcwidth(3)` counts them: East Asian wide and
/// fullwidth characters (CJK, Hangul, kana, fullwidth forms) and emoji take two, combining marks
/// and other zero-width characters none, everything else one. Counted per grapheme cluster by its
/// first scalar, so `é` written with a combining accent is one column. O(n).
func displayWidth(_ text: String) -> Int {
    if let width = asciiWidth(text) { return width }
    return text.reduce(0) { $0 + columns(of: $1) }
}

/// The width of `text` when it is all ASCII without NUL (one column a byte, as `columns(of:)` counts
/// them), else nil. A byte loop: walking grapheme clusters cost ~1 ms a row for `schedd list` of
/// 1 KiB titles in a debug build (perf: Unicode property lookups). O(n).
private func asciiWidth(_ text: String) -> Int? {
    allBytes(of: text) { $0 != 0 && $0 < 0x80 } ? text.utf8.count : nil
}

/// Whether every UTF-8 byte of `text` satisfies `accept`, over its contiguous storage. O(n).
private func allBytes(of text: String, _ accept: (UInt8) -> Bool) -> Bool {
    var text = text
    return text.withUTF8 { bytes in
        var index = 0
        while index < bytes.count {
            if !accept(bytes[index]) { return false }
            index += 1
        }
        return true
    }
}

private func columns(of character: Character) -> Int {
    guard let first = character.unicodeScalars.first else { return 0 }
    let v = first.value
    if v == 0 || (v >= 0x300 && v <= 0x36F) || v == 0x200B || (v >= 0x200C && v <= 0x200F) { return 0 }
    if first.properties.isEmojiPresentation { return 2 }
    if character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) && first.properties.isEmoji { return 2 }
    return isWide(v) ? 2 : 1
}

/// Unicode East_Asian_Width W or F (UAX #11), by range.
private func isWide(_ v: UInt32) -> Bool {
    switch v {
    case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF,
         0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
         0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
         0x1B000...0x1B2FF, 0x1F200...0x1F2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
        return true
    default:
        return false
    }
}

/// `text` for one table cell: control characters (a newline in a title) shown as spaces, so a row
/// stays one line.
func tableCell(_ text: String) -> String {
    // Printable ASCII (0x20–0x7E) has no control character: the text as it is, without a scalar walk.
    if allBytes(of: text, { $0 >= 0x20 && $0 < 0x7F }) { return text }
    return String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
}

/// Left-aligned columns separated by two spaces, padded by display width; the last column is not
/// padded.
func formatTable(_ rows: [[String]]) -> String {
    guard let columns = rows.first?.count else { return "" }
    var widths = [Int](repeating: 0, count: columns)
    for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], displayWidth(cell)) } }
    return rows.map { row in
        row.enumerated().map { i, cell in
            i == columns - 1 ? cell : cell + String(repeating: " ", count: widths[i] - displayWidth(cell))
        }.joined(separator: "  ")
    }.joined(separator: "\n")
}
