/// A date and wall-clock time as written in ISO 8601 / RFC 3339 form, with its UTC offset if one
/// was written: `2026-03-08T02:30` (floating), `2026-03-08T02:30:00Z`, `2026-03-08T02:30:00-05:00`.
///
/// Grammar (ASCII, nothing before or after):
///
///     YYYY-MM-DD T HH:MM [:SS [.fraction]] [Z | ±HH:MM]
///
/// - `YYYY` is 0001–9999, exactly four digits; each other field exactly two digits.
/// - `T` is upper case; a single space is accepted instead only with `allowSpaceSeparator`
///   (the command line's `schedd resolve "2026-03-08 02:30"`).
/// - The date must exist (2026-02-30 and a 13th month are not dates) and the time must be
///   00:00:00–23:59:59 (24:00 and leap second :60 are not times).
/// - `fraction` is 1–9 digits, allowed only after seconds, and truncated to microseconds:
///   accepted because JavaScript's `toISOString()` always writes milliseconds and Go writes
///   nanoseconds; nothing schedd shows needs more than microseconds.
/// - `Z` means offset 0. `±HH:MM` has HH ≤ 23 and MM ≤ 59; `-00:00` is read as 0.
///
/// Linear in the text's length; never traps on any input.
public struct ISODateTime: Sendable, Hashable {
    /// The wall-clock reading as written.
    public var wall: CivilDateTime
    /// The written UTC offset in seconds east of UTC, or nil when none was written (floating).
    public var offsetSeconds: Int?

    public init(wall: CivilDateTime, offsetSeconds: Int?) {
        self.wall = wall; self.offsetSeconds = offsetSeconds
    }

    /// The fixed instant, or nil for a floating time.
    public var instant: Instant? { offsetSeconds.map { wall.instant(offsetSeconds: $0) } }

    /// Parses `text` by the grammar above; `allowOffset: false` rejects a written offset.
    public init(parsing text: String, allowOffset: Bool = true,
                allowSpaceSeparator: Bool = false) throws(WallTimeParseError) {
        var utf8 = text
        let parsed = utf8.withUTF8 { Self.parse($0, allowOffset: allowOffset, allowSpaceSeparator: allowSpaceSeparator) }
        switch parsed {
        case .success(let value): self = value
        case .failure(let failure): throw WallTimeParseError(kind: failure.kind, text: text)
        }
    }

    /// Parses `text` (a `Substring` or other string) by the grammar above.
    public init(parsing text: some StringProtocol, allowOffset: Bool = true,
                allowSpaceSeparator: Bool = false) throws(WallTimeParseError) {
        try self.init(parsing: String(text), allowOffset: allowOffset, allowSpaceSeparator: allowSpaceSeparator)
    }

    /// A failure's kind before the text is attached (`Result` needs an `Error`).
    private struct KindOnly: Error {
        let kind: WallTimeParseError.Kind
        init(_ kind: WallTimeParseError.Kind) { self.kind = kind }
    }

    /// The grammar over the text's UTF-8 bytes `s`: the value, or why it is not one. O(s.count).
    private static func parse(_ s: UnsafeBufferPointer<UInt8>, allowOffset: Bool,
                              allowSpaceSeparator: Bool) -> Result<ISODateTime, KindOnly> {
        var c = ByteCursor(s)
        let malformed = KindOnly(.malformed(offsetAllowed: allowOffset))
        guard let year = c.digits(4), c.take("-"), let month = c.digits(2), c.take("-"), let day = c.digits(2)
        else { return .failure(malformed) }
        guard c.take("T") || (allowSpaceSeparator && c.take(" ")) else { return .failure(malformed) }
        guard let hour = c.digits(2), c.take(":"), let minute = c.digits(2) else { return .failure(malformed) }
        var second = 0
        var microsecond = 0
        if c.take(":") {
            guard let ss = c.digits(2) else { return .failure(malformed) }
            second = ss
            if c.take(".") {
                var count = 0
                while count < 9, let d = c.digit() {
                    if count < 6 { microsecond = microsecond * 10 + d }
                    count += 1
                }
                guard count > 0 else { return .failure(malformed) }
                while count < 6 { microsecond *= 10; count += 1 }
            }
        }
        var offset: Int?
        if !c.atEnd {
            if c.take("Z") {
                offset = 0
            } else if c.take("+") || c.take("-") {
                let sign = s[c.i - 1] == UInt8(ascii: "-") ? -1 : 1
                guard let oh = c.digits(2), c.take(":"), let om = c.digits(2) else { return .failure(malformed) }
                guard c.atEnd else { return .failure(malformed) }
                guard oh <= 23, om <= 59 else { return .failure(KindOnly(.invalidOffset)) }
                offset = sign * (oh * 3600 + om * 60)
            } else {
                return .failure(malformed)
            }
        }
        guard c.atEnd else { return .failure(malformed) }
        if offset != nil && !allowOffset { return .failure(KindOnly(.unexpectedOffset)) }
        guard year >= 1, (1...12).contains(month), day >= 1, day <= daysInMonth(year, month) else {
            return .failure(KindOnly(.notADate))
        }
        guard hour <= 23, minute <= 59, second <= 59 else { return .failure(KindOnly(.notATime)) }
        let wall = CivilDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                                 microsecond: microsecond)
        return .success(ISODateTime(wall: wall, offsetSeconds: offset))
    }
}

/// A read position in ASCII text: the parser's state as a value, so that reading it needs no closure
/// capturing a variable (and no run-time exclusivity check per character).
private struct ByteCursor {
    let s: UnsafeBufferPointer<UInt8>
    /// The next byte to read; 0...s.count.
    private(set) var i = 0

    init(_ s: UnsafeBufferPointer<UInt8>) { self.s = s }

    var atEnd: Bool { i == s.count }

    /// Consumes `c` if it is next.
    mutating func take(_ c: Unicode.Scalar) -> Bool {
        guard i < s.count, s[i] == UInt8(ascii: c) else { return false }
        i += 1
        return true
    }

    /// Consumes one decimal digit if one is next, and gives its value.
    mutating func digit() -> Int? {
        guard i < s.count else { return nil }
        let d = s[i] &- UInt8(ascii: "0")
        guard d < 10 else { return nil }
        i += 1
        return Int(d)
    }

    /// Consumes exactly `n` decimal digits and gives their value; nil (with `i` moved) when fewer follow.
    mutating func digits(_ n: Int) -> Int? {
        var v = 0
        for _ in 0..<n {
            guard let d = digit() else { return nil }
            v = v * 10 + d
        }
        return v
    }
}

extension CivilDateTime {
    /// Parses a floating wall time `YYYY-MM-DDTHH:MM[:SS[.fraction]]` (or with a space for `T`), as
    /// `schedd resolve` takes it; a written offset is an error. See `ISODateTime` for the grammar.
    public init(parsing text: some StringProtocol) throws(WallTimeParseError) {
        self = try ISODateTime(parsing: text, allowOffset: false, allowSpaceSeparator: true).wall
    }
}

/// Why a text is not an `ISODateTime`. `description` names the text and the rule:
/// `2026-02-30T10:00 is not a date`.
public struct WallTimeParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// Not the `YYYY-MM-DDTHH:MM[:SS]` shape at all.
        case malformed(offsetAllowed: Bool)
        /// The shape is right but the date does not exist (02-30, month 13, year 0000).
        case notADate
        /// The shape is right but the time does not exist (24:00, :60).
        case notATime
        /// The UTC offset's hours exceed 23 or its minutes 59.
        case invalidOffset
        /// An offset was written where only a floating wall time is allowed.
        case unexpectedOffset
    }

    public var kind: Kind
    /// The text as given.
    public var text: String

    public init(kind: Kind, text: String) { self.kind = kind; self.text = text }

    public var description: String {
        switch kind {
        case .malformed(let offsetAllowed):
            let shape = offsetAllowed ? "YYYY-MM-DDTHH:MM[:SS] with an optional Z or ±HH:MM" : "YYYY-MM-DDTHH:MM[:SS]"
            return "\(WallTimeParseError.quoted(text)) is not \(shape)"
        case .notADate: return "\(text) is not a date"
        case .notATime: return "\(text) is not a time"
        case .invalidOffset: return "\(text) has an invalid UTC offset"
        case .unexpectedOffset: return "\(text) must not have a UTC offset"
        }
    }

    /// See `quotedForMessage(_:)`.
    static func quoted(_ text: String) -> String { quotedForMessage(text) }
}
