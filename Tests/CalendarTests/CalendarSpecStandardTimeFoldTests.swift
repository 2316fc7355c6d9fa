import SystemZones
import Foundation
import SeededRandomness
import XCTest
@testable import SchedCalendar

/// CONTRACT §2: `calendar` agrees with `systemd-analyze calendar` (systemd 252) also in folds where the
/// UTC offset falls without a DST flag change — a zone changing its standard time (Europe/Moscow 2014,
/// Europe/Volgograd 2020, …). Zones and folds are found from the zone files (every transition whose
/// offset falls while the DST flag stays); base times are seeded inside and around each fold.
final class CalendarSpecStandardTimeFoldTests: XCTestCase {
    static let zones = ["Europe/Moscow", "Europe/Volgograd", "Europe/Kaliningrad", "Asia/Magadan",
                        "Asia/Sakhalin", "Europe/Saratov", "Asia/Srednekolymsk", "Asia/Chita", "Asia/Yerevan",
                        "Europe/Minsk", "Pacific/Kosrae", "America/Caracas"]
    static let specs = ["*:00", "*:30", "*:0/15", "*:0/20:30", "hourly", "daily", "*-*-* 00:30", "*-*-* 01:30",
                        "*-*-* 01:59:59", "*-*-* 02:00", "*-*-* 00,01,02:00,30", "Sat,Sun 01:00..02:00"]

    /// The standard-time folds of `zone` after 1970: (instant of the transition, how far the offset fell).
    static func standardTimeFolds(_ zone: TimeZoneRules) -> [(at: Int64, fall: Int)] {
        var folds: [(Int64, Int)] = []
        for i in 1..<zone.transitions.count where zone.transitions[i] > 0 {
            let before = zone.offsets[i - 1], after = zone.offsets[i]
            if after.utcOffsetSeconds < before.utcOffsetSeconds && after.isDST == before.isDST {
                folds.append((zone.transitions[i], before.utcOffsetSeconds - after.utcOffsetSeconds))
            }
        }
        return folds
    }

    func testStandardTimeFolds_agreeWithSystemdAnalyze() throws {
        guard SystemdAnalyze.isAvailable else { throw missingReference("systemd-analyze not installed") }
        var random = SplitMix64(seed: 0x5717_F01D)
        var generator = CalendarSpecGenerator(random: SplitMix64(seed: 0xF01D_0252), suffixZones: [])
        var cases = 0, compared = 0, folds = 0
        var disagreements: [String] = []
        for name in Self.zones {
            guard let zone = try? ZoneDatabase.shared.zone(named: name) else {
                if referencesRequired { throw missingReference("zone file \(name)") }
                continue
            }
            for fold in Self.standardTimeFolds(zone) where fold.at < 4_102_444_800 {
                folds += 1
                // Seeded base times: before the fold, inside its first and its second pass, just after.
                var bases: [Int64] = []
                for _ in 0..<6 {
                    bases.append(fold.at - Int64(random.int(0...(fold.fall * 2))) + Int64(random.int(0...fold.fall)))
                }
                bases.append(fold.at - Int64(fold.fall) - 1)
                bases.append(fold.at - 1)
                bases.append(fold.at)
                for base in bases {
                    var specs = Self.specs
                    while specs.count < Self.specs.count + 4 {  // and generated expressions
                        let spec = generator.expression()
                        if !specs.contains(spec) { specs.append(spec) }
                    }
                    let verdicts = try SystemdAnalyze.calendar(specs, zone: name, baseTime: base, iterations: 4)
                    // One systemd-analyze process: one glibc mktime state through every spec and iteration.
                    var state = MktimeState()
                    for (spec, verdict) in zip(specs, verdicts) {
                        cases += 1
                        guard case .accepted(_, let elapses) = verdict else { continue }
                        guard let parsed = try? CalendarSpec(parsing: spec, zones: ZoneDatabase.shared) else {
                            disagreements.append("TZ=\(name) '\(spec)': systemd accepts, we reject")
                            continue
                        }
                        var ours: [Int64] = []
                        var after = Instant(seconds: base)
                        while ours.count < elapses.count,
                              let next = parsed.nextElapse(after: after, in: zone, state: &state) {
                            ours.append(next.seconds)
                            after = next
                        }
                        compared += elapses.count
                        if ours != elapses {
                            disagreements.append("TZ=\(name) --base-time=@\(base) '\(spec)': \(ours) vs systemd \(elapses)")
                        }
                    }
                }
            }
        }
        print("standard-time folds: \(folds) folds in \(Self.zones.count) zones, \(cases) cases, \(compared) elapses "
              + "compared, \(disagreements.count) disagreements")
        for d in disagreements.prefix(20) { print("  DISAGREE \(d)") }
        XCTAssertGreaterThanOrEqual(folds, 8, "too few standard-time folds found to mean much")
        XCTAssertEqual(disagreements, [])
    }
}
