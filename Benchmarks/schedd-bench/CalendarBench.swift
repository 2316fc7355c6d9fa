import SystemZones
import Foundation
import SchedCalendar

/// `schedd-bench calendar [iterations]`: next elapses of equivalent rules with SchedCalendar
/// (`CalendarSpec.nextElapse`) and with Foundation (`Calendar.nextDate(after:matching:matchingPolicy:)`),
/// in UTC, Europe/Berlin and America/New_York, each walking a chain of consecutive elapses (best of
/// three runs each).
///
/// Rules: daily 09:30; weekdays 08:00 (Foundation: 08:00 repeated until Monday–Friday, as it has no
/// weekday ranges); the first of the month at 00:00. Also prints the cost of a zone's first load.
func calendarBenchmark(_ args: [String]) {
    let ourIterations = args.first.flatMap { Int($0) } ?? 200_000
    let foundationIterations = max(1, ourIterations / 20)
    let rules: [(name: String, spec: String, components: DateComponents, weekdaysOnly: Bool)] = [
        ("daily-0930", "*-*-* 09:30:00", DateComponents(hour: 9, minute: 30, second: 0), false),
        ("weekdays-0800", "Mon..Fri 08:00", DateComponents(hour: 8, minute: 0, second: 0), true),
        ("monthly-first", "*-*-01 00:00", DateComponents(day: 1, hour: 0, minute: 0, second: 0), false),
    ]
    let zoneNames = ["UTC", "Europe/Berlin", "America/New_York"]
    let base = Instant(seconds: 1_767_225_600)   // 2026-01-01T00:00:00Z

    printFirstZoneLoad()

    var ourTotal = 0.0, foundationTotal = 0.0, cases = 0
    for zoneName in zoneNames {
        guard let zone = try? ZoneDatabase.shared.zone(named: zoneName),
              let foundationZone = TimeZone(identifier: zoneName) else {
            print("calendar: zone \(zoneName) unavailable, skipped")
            continue
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = foundationZone
        for rule in rules {
            guard let spec = try? CalendarSpec(parsing: rule.spec, zones: ZoneDatabase.shared) else { continue }
            // Ours: a chain of consecutive elapses.
            // Best of three runs each: the machine is shared, and the minimum is the least disturbed.
            var checksum: Int64 = 0
            let ourNanos = bestOfThree {
                var after = base
                for _ in 0..<ourIterations {
                    guard let next = spec.nextElapse(after: after, in: zone) else { after = base; continue }
                    checksum &+= next.microseconds
                    after = next
                }
            }
            // Foundation: the same chain.
            var foundationChecksum = 0.0
            let foundationNanos = bestOfThree {
                var after = Date(timeIntervalSince1970: Double(base.seconds))
                for _ in 0..<foundationIterations {
                    var next = calendar.nextDate(after: after, matching: rule.components, matchingPolicy: .nextTime)
                    while rule.weekdaysOnly, let n = next, !(2...6).contains(calendar.component(.weekday, from: n)) {
                        next = calendar.nextDate(after: n, matching: rule.components, matchingPolicy: .nextTime)
                    }
                    guard let n = next else { break }
                    foundationChecksum += n.timeIntervalSince1970
                    after = n
                }
            }
            let ours = Double(ourNanos) / Double(ourIterations)
            let foundation = Double(foundationNanos) / Double(foundationIterations)
            ourTotal += ours; foundationTotal += foundation; cases += 1
            print("calendar \(rule.name) \(zoneName): SchedCalendar \(format(ours)) ns/op, Foundation \(format(foundation)) ns/op"
                  + " (checksums \(checksum % 1000), \(Int(foundationChecksum) % 1000))")
            printResult("calendar.\(rule.name).\(zoneName)", ours: ours, baseline: foundation, unit: "ns")
        }
    }
    if cases > 0 {
        printResult("calendar.overall", ours: ourTotal / Double(cases), baseline: foundationTotal / Double(cases),
                    unit: "ns")
    }
}

/// The smallest of three measurements of `body`, in nanoseconds.
private func bestOfThree(_ body: () -> Void) -> UInt64 {
    (0..<3).map { _ in measureNanos(body) }.min() ?? 0
}

/// The cost of loading a zone the first time (a fresh `ZoneDatabase`: open, read, parse) and again
/// (cached), next to Foundation's first `TimeZone(identifier:)` of another zone.
private func printFirstZoneLoad() {
    for name in ["America/New_York", "Europe/Berlin"] {
        let database = ZoneDatabase()
        var loaded = false
        let first = measureNanos { loaded = (try? database.zone(named: name)) != nil }
        let again = measureNanos { loaded = loaded && (try? database.zone(named: name)) != nil }
        print("calendar: first load of \(name): \(format(Double(first) / 1000)) µs, cached: \(again) ns"
              + (loaded ? "" : " (failed to load)"))
    }
    var foundationZone: TimeZone?
    let foundationFirst = measureNanos { foundationZone = TimeZone(identifier: "Australia/Lord_Howe") }
    print("calendar: Foundation first TimeZone(identifier: Australia/Lord_Howe): "
          + "\(format(Double(foundationFirst) / 1000)) µs\(foundationZone == nil ? " (failed)" : "")")
}
