import SystemZones
import SeededRandomness
import Foundation
import SchedCalendar
import XCTest

/// Differential test against `systemd-analyze calendar` (systemd 252): seeded expressions, base times
/// around DST transitions in a dozen zones; normalized forms and every elapse must be identical.
///
/// systemd prints elapses in whole seconds, so elapses are compared at second precision. Expressions
/// for which systemd 252 gives up ("Infinite loop in calendar calculation") are counted and left out.
final class CalendarSpecDifferentialTests: XCTestCase {
    static let zones = ["America/New_York", "Europe/Berlin", "Europe/Dublin", "Australia/Lord_Howe",
                        "America/Santiago", "America/Havana", "Pacific/Apia", "Asia/Kolkata", "UTC",
                        "Europe/London", "America/St_Johns", "Australia/Sydney", "Pacific/Auckland",
                        // Standard-time changes (folds and gaps without a DST flag change); their folds are
                        // covered densely by CalendarSpecStandardTimeFoldTests.
                        "Europe/Moscow", "Europe/Volgograd"]
    static let iterations = 6

    func testDifferential_againstSystemdAnalyze() throws {
        guard SystemdAnalyze.isAvailable else { throw missingReference("systemd-analyze not installed") }
        // Zones without a zone file here are left out (tzdata missing), unless references are required.
        let zones = Self.zones.filter { (try? ZoneDatabase.shared.zone(named: $0)) != nil }
        if zones.count < Self.zones.count {
            if referencesRequired { throw missingReference("zone files for \(Set(Self.zones).subtracting(zones).sorted())") }
            print("calendar differential: zoneinfo unavailable, running in \(zones) only")
        }
        let environment = ProcessInfo.processInfo.environment
        let scale = Int(environment["CALENDAR_DIFF_SCALE"] ?? "") ?? 1
        let seed = UInt64(environment["CALENDAR_DIFF_SEED"] ?? "") ?? 0x5CED_0252
        var random = SplitMix64(seed: seed)
        var generator = CalendarSpecGenerator(random: SplitMix64(seed: seed &* 31 &+ 7),
                                              suffixZones: zones.filter { $0 != "UTC" })
        var cases = 0, elapsesCompared = 0, rejectedBoth = 0, systemdGaveUp = 0
        var disagreements: [String] = []

        for zoneName in zones {
            let zone = try ZoneDatabase.shared.zone(named: zoneName)
            var anchors = try SystemdAnalyze.transitions(of: zoneName, from: 1971, to: 2199)
            if anchors.isEmpty { anchors = [1_700_000_000] }
            // About 1000 cases in all; CALENDAR_DIFF_SCALE multiplies that for soak runs.
            let batches = max(10, 120 / zones.count) * scale
            for batch in 0..<batches {
                let base: Int64
                if batch % 5 != 4 {
                    // Minutes to days before a transition (sometimes just after it).
                    let anchor = random.pick(anchors)
                    let before = random.pick([60, 1800, 3600, 5400, 7200, 86_400, 3 * 86_400])
                    base = anchor - Int64(random.int(0...before)) + (random.chance(0.2) ? Int64(random.int(0...3600)) : 0)
                } else {
                    base = Int64(random.int(31_536_000...7_250_000_000))   // 1971…2199
                }
                var specs: [String] = []
                while specs.count < 8 {
                    let spec = specs.count == 7 ? generator.garbage() : generator.expression()
                    if !specs.contains(spec) { specs.append(spec) }
                }
                let verdicts = try SystemdAnalyze.calendar(specs, zone: zoneName, baseTime: base,
                                                           iterations: Self.iterations)
                // One systemd-analyze process: one glibc mktime state through every spec and iteration.
                var state = MktimeState()
                for (spec, verdict) in zip(specs, verdicts) {
                    cases += 1
                    let ours = Result { () throws(CalendarError) -> CalendarSpec in try CalendarSpec(parsing: spec, zones: ZoneDatabase.shared) }
                    let context = "TZ=\(zoneName) --base-time=@\(base) '\(spec)'"
                    switch (verdict, ours) {
                    case (.rejected, .failure):
                        rejectedBoth += 1
                    case (.rejected, .success(let parsed)):
                        disagreements.append("\(context): systemd rejects, we accept as '\(parsed.normalized)'")
                    case (.gaveUp, .success(let parsed)):
                        // systemd has no answer; ours must still be a strictly increasing series after the base.
                        systemdGaveUp += 1
                        var after = Instant(seconds: base)
                        var ours: [String] = []
                        for _ in 0..<Self.iterations {
                            guard let next = parsed.nextElapse(after: after, in: zone) else { break }
                            if next <= after { disagreements.append("\(context): elapse \(next) not after \(after)") }
                            ours.append(zone.localDateTime(at: next).description)
                            after = next
                        }
                        if systemdGaveUp <= 5 { print("  systemd gave up on \(context); ours (local): \(ours)") }
                    case (.gaveUp, .failure(let error)), (.accepted, .failure(let error)):
                        disagreements.append("\(context): systemd accepts, we reject: \(error)")
                    case (.accepted(let normalized, let elapses), .success(let parsed)):
                        let again = try? CalendarSpec(parsing: parsed.normalized, zones: ZoneDatabase.shared)
                        if again?.normalized != parsed.normalized {
                            disagreements.append("\(context): normalized form does not round-trip: \(String(describing: again?.normalized))")
                        }
                        if parsed.normalized != normalized {
                            disagreements.append("\(context): normalized '\(parsed.normalized)' vs systemd '\(normalized)'")
                        }
                        var ourElapses: [Int64] = []
                        var after = Instant(seconds: base)
                        while ourElapses.count < Self.iterations,
                              let next = parsed.nextElapse(after: after, in: zone, state: &state) {
                            ourElapses.append(next.seconds)
                            after = next
                        }
                        elapsesCompared += elapses.count
                        if ourElapses != elapses {
                            disagreements.append("\(context): elapses \(ourElapses) vs systemd \(elapses)")
                        }
                    }
                }
            }
        }
        print("calendar differential: \(cases) cases in \(zones.count) zones, \(elapsesCompared) elapses compared, "
              + "\(rejectedBoth) rejected by both, \(systemdGaveUp) where systemd 252 gives up, "
              + "\(disagreements.count) disagreements")
        for d in disagreements.prefix(25) { print("  DISAGREE \(d)") }
        XCTAssertEqual(disagreements.count, 0)
        XCTAssertGreaterThanOrEqual(cases, 80)
    }
}
