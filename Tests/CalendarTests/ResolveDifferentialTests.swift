import Foundation
import XCTest
@testable import SchedCalendar

/// `TimeZoneRules.resolve` against Python's `zoneinfo` (fold=0 = RFC 5545 = CONTRACT §2) over
/// seeded wall-clock times biased towards gaps and folds: most lie within ±2 h of a transition
/// taken from the zone itself (1900–2200, footer years included), some exactly on its edges.
final class ResolveDifferentialTests: XCTestCase {
    static let python = "/usr/bin/python3"
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Support/zoneinfo_resolve.py").path

    func testResolve_matchesPythonZoneinfo() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python) else { throw XCTSkip("no /usr/bin/python3") }
        let db = ZoneDatabase(directory: "/usr/share/zoneinfo")
        var rng = SeededRandom(seed: 20_261_129)
        var cases: [(zone: String, wall: CivilDateTime)] = []
        let from = CivilDateTime(year: 1900, month: 1, day: 1).localSeconds
        let through = CivilDateTime(year: 2200, month: 1, day: 1).localSeconds
        for name in differentialZones {
            let zone = try db.zone(named: name)
            let changes = zone.offsetChanges(from: from, through: through).changes
                .filter { $0.before.utcOffsetSeconds != $0.after.utcOffsetSeconds }
            for i in 0..<(changes.isEmpty ? 0 : 300) {
                let c = changes[Int.random(in: 0..<changes.count, using: &rng)]
                let b = Int64(c.before.utcOffsetSeconds), a = Int64(c.after.utcOffsetSeconds)
                // Local readings of the change: it starts at `at + before` and `at + after`.
                let edges: [Int64] = [c.at + b, c.at + a, c.at + b - 1, c.at + a - 1, c.at + b + 1, c.at + a + 1]
                let local = i % 4 == 0 ? edges[Int.random(in: 0..<edges.count, using: &rng)]
                                       : c.at + b + Int64.random(in: -7200...7200, using: &rng)
                var wall = CivilDateTime(instant: Instant(seconds: local), offsetSeconds: 0)
                if i % 5 == 1 { wall.microsecond = Int.random(in: 0..<1_000_000, using: &rng) }
                cases.append((name, wall))
            }
            for _ in 0..<40 {  // anywhere in 1900–2200
                let wall = CivilDateTime(instant: Instant(seconds: Int64.random(in: from..<through, using: &rng)),
                                         offsetSeconds: 0)
                cases.append((name, wall))
            }
        }
        let input = FileManager.default.temporaryDirectory
            .appendingPathComponent("schedd-resolve-\(ProcessInfo.processInfo.processIdentifier).txt")
        defer { try? FileManager.default.removeItem(at: input) }
        let text = cases.map { c in
            let w = c.wall
            return "\(c.zone) \(w.year) \(w.month) \(w.day) \(w.hour) \(w.minute) \(w.second) \(w.microsecond)"
        }.joined(separator: "\n") + "\n"
        try text.write(to: input, atomically: true, encoding: .utf8)
        let (status, output) = try runReference(Self.python, [Self.script, input.path])
        XCTAssertEqual(status, 0, "zoneinfo_resolve.py failed")
        let lines = output.split(separator: "\n")
        XCTAssertEqual(lines.count, cases.count)
        var disagreements = 0, kinds: [WallTimeKind: Int] = [:]
        for (c, line) in zip(cases, lines) {
            let r = try db.zone(named: c.zone).resolve(c.wall)
            kinds[r.kind, default: 0] += 1
            let ours = "\(r.instant.microseconds) \(r.offsetSeconds) \(r.kind.rawValue) "
                + (r.laterInstant.map { String($0.microseconds) } ?? "-")
            if ours != line {
                disagreements += 1
                if disagreements <= 20 { XCTFail("\(c.zone) \(c.wall): ours \(ours), zoneinfo \(line)") }
            }
        }
        print("resolve vs zoneinfo: \(cases.count) cases in \(differentialZones.count) zones "
              + "(unique \(kinds[.unique] ?? 0), gap \(kinds[.gap] ?? 0), fold \(kinds[.fold] ?? 0)), "
              + "\(disagreements) disagreements")
        XCTAssertEqual(disagreements, 0)
        XCTAssertGreaterThan(kinds[.gap] ?? 0, 500)
        XCTAssertGreaterThan(kinds[.fold] ?? 0, 500)
    }
}
