import SystemZones
import SeededRandomness
import Foundation
import XCTest
@testable import SchedCalendar

/// `TimeZoneRules.resolve` against Python's `zoneinfo` (fold=0 = RFC 5545 = CONTRACT §2) over
/// seeded wall-clock times biased towards gaps and folds: most lie within ±2 h of a transition
/// taken from the zone itself, some exactly on its edges.
final class ResolveDifferentialTests: XCTestCase {
    static let python = "/usr/bin/python3"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Support/zoneinfo_resolve.py").path

    typealias Case = (key: String, zone: TimeZoneRules, wall: CivilDateTime)

    /// Real zones, transitions 1900–2200 (footer years included).
    func testResolve_realZones_matchPythonZoneinfo() throws {
        let db = ZoneDatabase(directory: "/usr/share/zoneinfo")
        var rng = SplitMix64(seed: 20_261_129)
        var cases: [Case] = []
        for name in differentialZones {
            let zone = try db.zone(named: name)
            cases += walls(in: zone, from: 1900, through: 2200, nearChanges: 300, anywhere: 40, using: &rng)
                .map { (name, zone, $0) }
        }
        try compareWithZoneinfo(cases, label: "\(differentialZones.count) zones")
    }

    /// Random POSIX rules (both hemispheres, 30-min and 2-h and negative DST, `Mm.w.d` dates, times
    /// from −3 h to 27 h), as footer-only TZif files that zoneinfo reads too.
    ///
    /// Python 3.11's zoneinfo misreads forms that glibc reads as POSIX says, so those are left to
    /// `ZoneZdumpTests`: `Jn` and `n` dates (off by one day: `76` is 17 March 2022 for zoneinfo,
    /// 18 March for POSIX and glibc) and negative times with minutes (`/-2:30` becomes −1:30).
    func testResolve_randomPosixRules_matchPythonZoneinfo() throws {
        var rng = SplitMix64(seed: 0xF007E2)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("schedd-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var cases: [Case] = []
        for i in 0..<60 {
            let rule = randomPosixRule(pythonSafe: true, using: &rng)
            var fixture = TZifFixture()
            let stdOffset = try TimeZoneRules(posixTZ: rule).offset(at: Instant(seconds: 0))
            fixture.types = [.init(utoff: Int32(stdOffset.utcOffsetSeconds), isdst: stdOffset.isDST ? 1 : 0,
                                   abbreviation: stdOffset.abbreviation)]
            fixture.footer = rule
            let path = dir.appendingPathComponent("rule\(i)").path
            try Data(fixture.bytes()).write(to: URL(fileURLWithPath: path))
            let zone = try TimeZoneRules(tzif: fixture.bytes(), name: rule)
            cases += walls(in: zone, from: 1970, through: 2100, nearChanges: 80, anywhere: 10, using: &rng)
                .map { (path, zone, $0) }
        }
        try compareWithZoneinfo(cases, label: "60 random POSIX rules")
    }

    /// Seeded wall times: `nearChanges` within ±2 h of (or exactly on the edges of) changes of
    /// offset in the years `from`…`through`, and `anywhere` uniformly in those years.
    func walls(in zone: TimeZoneRules, from: Int, through: Int, nearChanges: Int, anywhere: Int,
               using rng: inout SplitMix64) -> [CivilDateTime] {
        let lower = CivilDateTime(year: from, month: 1, day: 1).localSeconds
        let upper = CivilDateTime(year: through, month: 1, day: 1).localSeconds
        let changes = zone.offsetChanges(from: lower, through: upper).changes
            .filter { $0.before.utcOffsetSeconds != $0.after.utcOffsetSeconds }
        var result: [CivilDateTime] = []
        for i in 0..<(changes.isEmpty ? 0 : nearChanges) {
            let c = changes[Int.random(in: 0..<changes.count, using: &rng)]
            let b = Int64(c.before.utcOffsetSeconds), a = Int64(c.after.utcOffsetSeconds)
            // Local readings of the change: it starts at `at + before` and `at + after`.
            let edges: [Int64] = [c.at + b, c.at + a, c.at + b - 1, c.at + a - 1, c.at + b + 1, c.at + a + 1]
            let local = i % 4 == 0 ? edges[Int.random(in: 0..<edges.count, using: &rng)]
                                   : c.at + b + Int64.random(in: -7200...7200, using: &rng)
            var wall = CivilDateTime(instant: Instant(seconds: local), offsetSeconds: 0)
            if i % 5 == 1 { wall.microsecond = Int.random(in: 0..<1_000_000, using: &rng) }
            result.append(wall)
        }
        for _ in 0..<anywhere {
            result.append(CivilDateTime(instant: Instant(seconds: Int64.random(in: lower..<upper, using: &rng)),
                                        offsetSeconds: 0))
        }
        return result
    }

    /// Runs the reference on `cases` and compares instant, offset, kind and the other candidate;
    /// also checks `wallCandidates` and round trips. Fails on any disagreement.
    func compareWithZoneinfo(_ cases: [Case], label: String) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else { throw missingReference("no /usr/bin/python3") }
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("schedd-resolve-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: input) }
        let text = cases.map { c in
            let w = c.wall
            return "\(c.key) \(w.year) \(w.month) \(w.day) \(w.hour) \(w.minute) \(w.second) \(w.microsecond)"
        }.joined(separator: "\n") + "\n"
        try text.write(to: input, atomically: true, encoding: .utf8)
        let (status, output) = try runReference(Self.python, [Self.script, input.path])
        XCTAssertEqual(status, 0, "zoneinfo_resolve.py failed")
        let lines = output.split(separator: "\n")
        XCTAssertEqual(lines.count, cases.count)
        var disagreements = 0, kinds: [WallTimeKind: Int] = [:]
        for (c, line) in zip(cases, lines) {
            let r = c.zone.resolve(c.wall)
            kinds[r.kind, default: 0] += 1
            let ours = "\(r.instant.microseconds) \(r.offsetSeconds) \(r.kind.rawValue) "
                + (r.laterInstant.map { String($0.microseconds) } ?? "-")
            if ours != line {
                disagreements += 1
                if disagreements <= 20 { XCTFail("\(c.zone.name) \(c.wall): ours \(ours), zoneinfo \(line)") }
            }
            // wallCandidates lists exactly the instants that read `wall`.
            let candidates = c.zone.wallCandidates(c.wall)
            switch r.kind {
            case .unique: XCTAssert(candidates == (r.instant, nil), "\(c.zone.name) \(c.wall)")
            case .fold: XCTAssert(candidates == (r.instant, r.laterInstant), "\(c.zone.name) \(c.wall)")
            case .gap: XCTAssert(candidates == (nil, nil), "\(c.zone.name) \(c.wall)")
            }
            for instant in [candidates.first, candidates.second].compactMap({ $0 }) {
                XCTAssertEqual(c.zone.localDateTime(at: instant), c.wall, "\(c.zone.name) \(instant)")
            }
        }
        print("resolve vs zoneinfo (\(label)): \(cases.count) cases (unique \(kinds[.unique] ?? 0), "
              + "gap \(kinds[.gap] ?? 0), fold \(kinds[.fold] ?? 0)), \(disagreements) disagreements")
        XCTAssertEqual(disagreements, 0)
        XCTAssertGreaterThan(kinds[.gap] ?? 0, cases.count / 10)
        XCTAssertGreaterThan(kinds[.fold] ?? 0, cases.count / 10)
    }
}
