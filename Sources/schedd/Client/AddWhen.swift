import SchedCalendar
import SystemZones
import ScheddService
import Scheduler

/// How `schedd add` reads WHEN (`--at`, `--until`) and checks that what it asks for will happen
/// (docs/cli.md, "schedd add"): a time of day alone is its next occurrence, as at(1); a time in the
/// past, an `--until` in the past and a calendar with no elapse after now are errors with the fix.

/// A WHEN read: the text for the push's `at`/`until` and the instant it names now.
struct AddTime {
    var pushText: String
    var instant: Instant
}

/// The zone `--tz` pins WHEN to, by name and rules.
struct PinnedZone {
    var name: String
    var rules: TimeZoneRules
}

/// Reads WHEN: a push's `at` (sent as written, floating unless it has an offset), else a systemd
/// timestamp, `today|tomorrow|yesterday TIME`, or a calendar expression's next elapse, read at the
/// daemon's clock in `pin`'s zone or the daemon's. `nextOccurrence`: a time of day alone (`09:00`)
/// that passed today means tomorrow's (at(1)). With `pin`, wall times are sent as wall times in it.
func readWhen(_ when: String, option: String, clock: DaemonClock, pin: PinnedZone?,
              nextOccurrence: Bool) throws(CommandFailure) -> AddTime {
    let zone = pin?.rules ?? clock.zone
    // A push's `at` is written with a `T`; the CLI also reads a space there, and sends the `T` form.
    switch parseTimeText(when) {
    case .floating(let civil, _)?:
        return AddTime(pushText: when.contains(" ") ? civil.iso8601(withOffset: nil) : when, instant: zone.resolve(civil).instant)
    case .fixed(let instant, _)?:
        if pin != nil { throw .usage("--tz: \(option) '\(when)' has an offset of its own; drop --tz or the offset") }
        return AddTime(pushText: when.contains(" ") ? instant.rfc3339 : when, instant: instant)
    case nil: break
    }
    if pin != nil && isRelative(when) {
        throw .usage("--tz: \(option) '\(when)' is counted from now, the same in every zone; drop --tz")
    }
    func sent(_ instant: Instant) -> AddTime {
        guard let pin else { return AddTime(pushText: instant.rfc3339, instant: instant) }
        return AddTime(pushText: pin.rules.localDateTime(at: instant).iso8601(withOffset: nil), instant: instant)
    }
    if var instant = instant(fromTimeArgument: when, now: clock.now, in: zone) {
        if nextOccurrence && isTimeOfDay(when) && instant < clock.now, let tomorrow = dated(when, days: 1, clock, zone) {
            instant = tomorrow
        }
        return sent(instant)
    }
    let words = when.split(separator: " ", maxSplits: 1)
    if words.count == 2, let days = ["yesterday": -1, "today": 0, "tomorrow": 1][String(words[0])],
       let instant = dated(String(words[1]), days: days, clock, zone) {
        return sent(instant)
    }
    if let spec = try? CalendarSpec(parsing: when, zones: ZoneDatabase.shared), let next = spec.nextElapse(after: clock.now, in: zone) {
        return sent(next)
    }
    throw .rejected("\(option): '\(when)' is not a time: expected YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM], a systemd timestamp "
                    + "(18:00, +2h, @1767225600, 2026-12-24 18:00 UTC), 'tomorrow 18:00' or a calendar expression")
}

/// `time` on the day `days` after the daemon's today, in `zone`.
private func dated(_ time: String, days: Int, _ clock: DaemonClock, _ zone: TimeZoneRules) -> Instant? {
    let date = zone.localDateTime(at: clock.now)
    let day = civilFromDays(date.daysSinceEpoch + Int64(days))
    return instant(fromTimeArgument: "\(day.year)-\(twoDigits(day.month))-\(twoDigits(day.day)) \(time)", now: clock.now, in: zone)
}

/// `HH:MM[:SS]` alone: what at(1) reads as its next occurrence.
private func isTimeOfDay(_ text: String) -> Bool {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard (2...3).contains(parts.count) else { return false }
    return parts.allSatisfy { part in (1...2).contains(part.count) && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber) }
}

/// A systemd timestamp counted from now or from the epoch (`+2h`, `-5min`, `@1767225600`, `now`,
/// `5min ago`, `3h left`): no wall time a zone could pin.
private func isRelative(_ text: String) -> Bool {
    text.hasPrefix("+") || text.hasPrefix("-") || text.hasPrefix("@") || text == "now"
        || text.hasSuffix(" ago") || text.hasSuffix(" left")
}

/// Rejects a WHEN in the past (exit 1), naming it, now, and the fix.
func rejectPast(_ time: AddTime, option: String, written: String, clock: DaemonClock, fix: String) throws(CommandFailure) {
    guard time.instant < clock.now else { return }
    throw .rejected("\(option): '\(written)' is in the past (\(clock.local(time.instant)); now is \(clock.local(clock.now))): "
                    + fix)
}

/// Parses `--calendar` as the daemon will (with `--tz` appended as its zone) and rejects one with no
/// elapse after now, or none before `until`. The messages name the options as written.
func checkCalendar(_ written: String, pin: PinnedZone?, until: (time: AddTime, written: String)?,
                   clock: DaemonClock) throws(CommandFailure) -> (text: String, next: Instant) {
    let text = pin.map { written + " " + $0.name } ?? written
    let spec: CalendarSpec
    do {
        spec = try CalendarSpec(parsing: text, zones: ZoneDatabase.shared)
    } catch {
        throw .rejected("--calendar: '\(written)': " + error.rule)
    }
    guard let next = spec.nextElapse(after: clock.now, in: pin?.rules ?? clock.zone) else {
        throw .rejected("--calendar: '\(written)' has no elapse after now (\(clock.local(clock.now))): every time it names "
                        + "is past; give one that comes again (check it with: schedd calendar '\(written)')")
    }
    if let until, next > until.time.instant {
        throw .rejected("--until: '\(until.written)' (\(clock.local(until.time.instant))) is before the first elapse of "
                        + "--calendar '\(written)' (\(clock.local(next))): nothing would fire; give a later --until")
    }
    return (text, next)
}

/// A daemon rejection of the push `add` built, in the person's terms: the push member it names (the
/// error's `detail`, never its text) becomes the option that set it (`bk.local.cancelOn[1]: …` →
/// `--cancel-on: …`); a rejection naming no member, or one no option sets, keeps its message.
func inOptionTerms(_ failure: CommandFailure) -> String {
    guard let detail = failure.detail, let option = option(settingMember: detail.member) else { return failure.message }
    return option + ": " + detail.rule
}

/// The `add` option that sets push member `member` (`bk.local.cancelOn[1]` → `--cancel-on`); nil for
/// a member no option sets.
func option(settingMember member: String) -> String? {
    let options: [(member: String, option: String)] = [
        ("bk.local.title", "TITLE"), ("bk.local.id", "--id"), ("bk.local.body", "--body"), ("bk.local.at", "--at"),
        ("bk.local.calendar", "--calendar"), ("bk.local.until", "--until"), ("bk.local.timeZone", "--tz"),
        ("bk.local.cancelOn", "--cancel-on"), ("bk.local.urgency", "--urgency"), ("bk.local.graceSeconds", "--grace"),
        ("bk.local.actions", "--action"), ("bk.local.snoozeSeconds", "--snooze"), ("bk.local.icon", "--icon"),
        ("bk.deepLink", "--deep-link"),
    ]
    for (path, option) in options where member.hasPrefix(path) {
        let rest = member.dropFirst(path.count)
        if rest.isEmpty || rest.hasPrefix("[") || rest.hasPrefix(".") { return option }
    }
    return nil
}
