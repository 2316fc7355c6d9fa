/// Why a calendar expression was rejected; `message` says what is wrong and where.
///
/// Example: `calendar: 'Mon..Fro 09:00': unknown weekday 'Fro' at offset 5`.
///
/// Typed: `stage` (which step refused: the parser, or the check of the parsed fields), `text` (the
/// expression) and `rule` (what it broke, with the offset when the parser knows it: `unknown weekday
/// 'Fro' at offset 5`). `message` is built from them: `calendar: '<text>': <rule>`; callers that speak of
/// the expression in their own terms use `rule` (never take `message` apart).
public struct CalendarError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The step that refused the expression.
    public enum Stage: String, Sendable, Hashable {
        /// The grammar (systemd's `calendar_spec_from_string`).
        case parse
        /// The values after normalization (ranges, impossible dates).
        case validate
    }
    public let stage: Stage
    /// The expression as given.
    public let text: String
    /// The rule broken, in words.
    public let rule: String
    public init(stage: Stage, text: String, rule: String) { self.stage = stage; self.text = text; self.rule = rule }
    /// `calendar: '<text>': <rule>`.
    public var message: String { "calendar: '\(text)': \(rule)" }
    public var description: String { message }
}

/// A parsed systemd.time(7) calendar-event expression (`Mon..Fri 09:00`, `*-*-01 08:30 Europe/Berlin`),
/// accepting exactly what systemd 252 accepts.
///
/// Grammar (systemd.time(7), "Calendar Events"):
///
///     [WEEKDAYS] [DATE] [TIME] [ZONE]   |   SHORTHAND [ZONE]   |   @EPOCH [ZONE]
///     WEEKDAYS  = day ("," day | ".." day | "-" day)*     Mon…Sun or Monday…Sunday, any case
///     DATE      = [YEAR "-"] MONTH ("-" | "~") DAY        each a CHAIN; "~" counts days from the month's end
///     TIME      = HOUR ":" MINUTE [":" SECOND]            SECOND may carry up to 6 fractional digits
///     CHAIN     = "*" | VALUE ("," VALUE)*,  VALUE = N [".." N] ["/" N]
///     ZONE      = "UTC" (any case) | an IANA zone name known to the parser's `ZoneResolver`
///
/// Field ranges after normalization (values outside are rejected):
///
/// | field  | range        | notes                                                     |
/// |--------|--------------|-----------------------------------------------------------|
/// | year   | 1970…2199    | 0…69 → 2000…2069, 70…99 → 1970…1999                        |
/// | month  | 1…12         |                                                           |
/// | day    | 1…31         | with `~`: 1…28 (the Nth day counted back from month end)   |
/// | hour   | 0…23         | a missing time means 00:00:00                              |
/// | minute | 0…59         | a missing second means :00                                 |
/// | second | 0…59.999999  | microsecond resolution, `*` = 0/1                          |
///
/// Shorthands: minutely, hourly, daily, weekly (Mon 00:00), monthly, quarterly (Jan/Apr/Jul/Oct 1),
/// semiannually (also biannually, bi-annually, semi-annually; Jan/Jul 1), yearly, annually (also anually).
///
/// Not supported: the local zone's abbreviation as a suffix (`daily CET` under `TZ=Europe/Berlin`),
/// whose meaning depends on the process zone; an abbreviation that is also a zoneinfo file
/// (`EST`, `MST`) is taken as that zone, as systemd does when the process zone differs.
///
/// Values are immutable and `Sendable`. Parsing is O(length of the text).
public struct CalendarSpec: Sendable, Hashable {
    /// The expression as given.
    public let source: String
    /// systemd's normalized form (`Mon..Fri *-*-* 09:00:00`), identical to `systemd-analyze calendar`.
    public let normalized: String
    /// The zone suffix (`UTC`, `Europe/Berlin`) that pins the expression, or nil when it floats.
    public let timeZoneName: String?

    /// The parsed fields (chains of values, weekday bits, flags).
    let fields: CalendarFields
    /// The zone named by the suffix, loaded at parse time; nil when floating or UTC.
    let pinnedZone: TimeZoneRules?
    /// `pinnedZone`, for a caller that keeps parsed expressions and must tell whether the rules inside one
    /// are still those its zone database gives (the same instance) after the zone files changed.
    public var pinnedZoneRules: TimeZoneRules? { pinnedZone }

    /// Parses `text`; throws with a message naming the problem and its position.
    ///
    /// `CalendarSpec(parsing: "mon..fri 9:00", zones: db).normalized == "Mon..Fri *-*-* 09:00:00"`.
    /// A zone suffix is resolved through `zones` (there is no default: the caller says which database).
    public init(parsing text: String, zones: any ZoneResolver) throws(CalendarError) {
        var parsed: (fields: CalendarFields, zoneName: String?, zone: TimeZoneRules?)
        do {
            parsed = try CalendarParser.parse(text, zones: zones)
        } catch {
            throw CalendarError(stage: .parse, text: text, rule: error.message)
        }
        parsed.fields.normalize()
        if let problem = parsed.fields.validationProblem() {
            throw CalendarError(stage: .validate, text: text, rule: problem)
        }
        source = text
        fields = parsed.fields
        timeZoneName = fields.utc ? "UTC" : parsed.zoneName
        pinnedZone = fields.utc ? nil : parsed.zone
        normalized = fields.formatted(zoneName: parsed.zoneName)
    }

    /// The first elapse strictly after `instant`, evaluated in `zone` (ignored when the spec is pinned
    /// to its own zone by a suffix, which was resolved through the parser's `ZoneResolver`), or nil when
    /// there is none before 2200-01-01 (systemd's `MAX_YEAR` is 2199).
    ///
    /// The elapse is the one `systemd-analyze calendar` (252.39, Debian 12) prints, DST behaviour
    /// included: an occurrence whose wall time falls in a gap is skipped (`*-*-* 02:30 America/New_York`
    /// has no elapse on 2026-03-08), and a wall time repeated by a fold fires once, at the earlier
    /// offset (2026-11-01 01:30 EDT, 05:30Z). In a 30-minute gap (Australia/Lord_Howe 2025-10-05,
    /// 02:00→02:30) `*:10,35` skips 02:10 and fires at 02:35 (+11).
    ///
    /// Where systemd 252 gives up ("Infinite loop in calendar calculation", e.g. `*-1/10-6` in
    /// New York, caused by a stale `tm_isdst` after a month roll-over) this returns what the same
    /// search gives without the stale flag: 2025-11-06 00:00 EST, then 2026-01-06 00:00 EST.
    ///
    /// Cost: typically a few hundred nanoseconds in UTC; bounded by 1000 search steps (systemd's
    /// `MAX_CALENDAR_ITERATIONS`) plus one fallback search.
    ///
    /// This continues a series: glibc's mktime state is taken to be what finding `instant` left (as in
    /// `systemd-analyze calendar --iterations`, iteration 2 on). A series' first search — a fresh
    /// process — is `nextElapse(after:in:state:)` with a new `MktimeState`.
    public func nextElapse(after instant: Instant, in zone: TimeZoneRules) -> Instant? {
        var guess: Int?
        return search(after: instant, in: zone, guess: &guess)
    }

    /// The next elapse as the process whose glibc state is `state` finds it, updating `state` as glibc
    /// would (`systemd-analyze calendar` threads one state through every spec and iteration, from 0).
    /// A spec pinned to another zone is evaluated as systemd does, in a forked child: it starts from
    /// `state` and leaves it unchanged; UTC uses `timegm`, which has no state.
    public func nextElapse(after instant: Instant, in zone: TimeZoneRules, state: inout MktimeState) -> Instant? {
        var guess: Int? = state.localtimeOffset
        let found = search(after: instant, in: zone, guess: &guess)
        if !fields.utc && pinnedZone == nil && !zone.isUTC, let guess { state.localtimeOffset = guess }
        return found
    }

    private func search(after instant: Instant, in zone: TimeZoneRules, guess: inout Int?) -> Instant? {
        if fields.utc { return ElapseSearch.next(fields, after: instant, zone: nil, guess: &guess) }
        let effective = pinnedZone ?? zone
        return ElapseSearch.next(fields, after: instant, zone: effective.isUTC ? nil : effective, guess: &guess)
    }

    public static func == (a: CalendarSpec, b: CalendarSpec) -> Bool {
        a.source == b.source && a.normalized == b.normalized && a.timeZoneName == b.timeZoneName
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(source)
        hasher.combine(normalized)
    }
}

extension TimeZoneRules {
    /// Whether this zone is UTC itself, for which the arithmetic fast path applies.
    var isUTC: Bool { self === TimeZoneRules.utc }
}

/// glibc's hidden `mktime` state (`localtime_offset`, the UTC offset its last call found, 0 in a new
/// process), which decides which pass of a standard-time fold (Europe/Moscow 2014-10-26: +04 → +03,
/// both standard time) a wall time means: `tm_isdst = -1` cannot tell the passes apart, so mktime
/// returns the one its first guess lands on. Carry one value through a series of searches.
public struct MktimeState: Sendable, Hashable {
    /// Seconds east of UTC.
    public var localtimeOffset: Int
    public init(localtimeOffset: Int = 0) { self.localtimeOffset = localtimeOffset }
}
