extension TimeSpan {
    /// `microseconds` as systemd's `format_timespan(buf, l, t, accuracy)` writes it: `1h 30min`,
    /// `1y 2month 3d 12h`, `3.100000s`, `500ms`, `0`, `infinity` — the form `parse` reads back.
    ///
    /// Components from years down to microseconds, each shown only when non-zero; below one minute
    /// a remainder is written in dot notation in the largest unit (`3.100000s`, with as many digits
    /// as the unit has below it, fewer by one per power of ten in `accuracy`). Components below
    /// `accuracy` are dropped once something was written. O(1).
    public static func format(_ microseconds: UInt64, accuracy: UInt64 = 1) -> String {
        if microseconds == infinity { return "infinity" }
        if microseconds == 0 { return "0" }
        let table: [(String, UInt64)] = [
            ("y", 31_557_600_000_000), ("month", 2_629_800_000_000), ("w", 604_800_000_000), ("d", 86_400_000_000),
            ("h", 3_600_000_000), ("min", 60_000_000), ("s", 1_000_000), ("ms", 1000), ("us", 1),
        ]
        var t = microseconds
        var out = ""
        var something = false
        for (suffix, unit) in table {
            if t == 0 { break }
            if t < accuracy && something { break }
            if t < unit { continue }
            let a = t / unit
            var b = t % unit
            var done = false
            if t < 60_000_000 && b > 0 {
                var j = 0
                var cc = unit
                while cc > 1 { j += 1; cc /= 10 }
                cc = accuracy
                while cc > 1 { b /= 10; j -= 1; cc /= 10 }
                if j > 0 {
                    let digits = String(b)
                    out += (out.isEmpty ? "" : " ") + "\(a)." + String(repeating: "0", count: max(0, j - digits.count))
                        + digits + suffix
                    t = 0
                    done = true
                }
            }
            if !done {
                out += (out.isEmpty ? "" : " ") + "\(a)" + suffix
                t = b
            }
            something = true
        }
        return out
    }
}
