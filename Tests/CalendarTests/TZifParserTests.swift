import SeededRandomness
import XCTest
@testable import SchedCalendar

/// TZif parsing from fixtures built in code (`TZifFixture`): versions, footers, corruption.
final class TZifParserTests: XCTestCase {
    func offset(_ z: TimeZoneRules, _ seconds: Int64) -> ZoneOffset { z.offset(at: Instant(seconds: seconds)) }

    func testVersion1_onlyData_lastTypeAppliesAfterLastTransition() throws {
        var f = TZifFixture.newYorkLike
        f.version = 0
        f.transitions[0] = -2_000_000_000  // 1906-08-16T20:26:40Z: 1883 does not fit in 32 bits
        let z = try TimeZoneRules(tzif: f.bytes(), name: "Test/V1")
        XCTAssertEqual(z.name, "Test/V1")
        XCTAssertEqual(offset(z, -2_800_000_000), ZoneOffset(utcOffsetSeconds: -17762, isDST: false, abbreviation: "LMT"))
        XCTAssertEqual(offset(z, -2_000_000_001).abbreviation, "LMT")   // 1906-08-16T20:26:39Z
        XCTAssertEqual(offset(z, -2_000_000_000).abbreviation, "EST")   // 1906-08-16T20:26:40Z
        XCTAssertEqual(offset(z, -1_633_280_400), ZoneOffset(utcOffsetSeconds: -14400, isDST: true, abbreviation: "EDT"))
        XCTAssertEqual(offset(z, 1_173_596_399).abbreviation, "EST")   // 2007-03-11T06:59:59Z
        XCTAssertEqual(offset(z, 1_173_596_400).abbreviation, "EDT")   // 2007-03-11T07:00:00Z
        // No footer in v1: EST forever after 2007-11-04, even in July 2026.
        XCTAssertEqual(offset(z, 1_782_864_000).abbreviation, "EST")   // 2026-07-01T00:00:00Z
    }

    func testVersion2_uses64BitBlockAndFooter() throws {
        var f = TZifFixture.newYorkLike
        // The 32-bit block claims +01:00 everywhere: a reader that used it would be wrong.
        f.v1Types = f.types.map { _ in .init(utoff: 3600, isdst: 0, abbreviation: "BAD") }
        f.transitions.insert(-3_000_000_000, at: 0)  // 1874: only representable in the 64-bit block
        f.transitionTypes.insert(0, at: 0)
        for version: UInt8 in [2, 3, 4] {
            f.version = version
            let z = try TimeZoneRules(tzif: f.bytes(), name: "Test/V\(version)")
            XCTAssertEqual(offset(z, -2_717_650_800).abbreviation, "EST", "v\(version)")
            XCTAssertEqual(offset(z, 1_782_864_000).abbreviation, "EDT", "v\(version): footer in July 2026")
            XCTAssertEqual(offset(z, 1_798_761_600).abbreviation, "EST", "v\(version): footer in 2027-01")
            // 2026-03-08T07:00:00Z is the footer's DST start.
            XCTAssertEqual(offset(z, 1_772_953_199).utcOffsetSeconds, -18000)
            XCTAssertEqual(offset(z, 1_772_953_200).utcOffsetSeconds, -14400)
        }
    }

    func testFooterOnlyZone_zeroTransitions() throws {
        var f = TZifFixture()
        f.types = [.init(utoff: -18000, isdst: 0, abbreviation: "EST")]
        f.footer = "EST5EDT,M3.2.0,M11.1.0"
        let z = try TimeZoneRules(tzif: f.bytes(), name: "Test/FooterOnly")
        XCTAssertEqual(offset(z, 1_772_953_200).abbreviation, "EDT")   // 2026-03-08T07:00:00Z
        XCTAssertEqual(offset(z, -1_007_776_000).abbreviation, "EST")  // 1938-01-24T22:13:20Z (rule applies in all years)
        XCTAssertEqual(offset(z, -1_000_000_000).abbreviation, "EDT")  // 1938-04-24T22:13:20Z
        let r = z.resolve(CivilDateTime(year: 2026, month: 3, day: 8, hour: 2, minute: 30))
        XCTAssertEqual(r.kind, .gap)
        XCTAssertEqual(r.instant, Instant(seconds: 1_772_955_000))     // 2026-03-08T07:30:00Z
    }

    func testEmptyFooter_lastTransitionTypeApplies() throws {
        var f = TZifFixture.newYorkLike
        f.footer = ""
        let z = try TimeZoneRules(tzif: f.bytes(), name: "Test/NoFooter")
        XCTAssertNil(z.footer)
        XCTAssertEqual(offset(z, 1_782_864_000).abbreviation, "EST")   // 2026-07-01: no rule, stays EST
    }

    func testLeapSecondRecords_transitionsMappedToPOSIXTime() throws {
        var f = TZifFixture.newYorkLike
        // Two leap seconds before 2007 (at 1972-07-01 and 1973-01-01 in the leap-counting scale).
        f.leapSeconds = [(78_796_800, 1), (94_694_401, 2)]
        f.transitions = f.transitions.map { $0 > 94_694_401 ? $0 + 2 : $0 }
        let z = try TimeZoneRules(tzif: f.bytes(), name: "right/Test")
        XCTAssertEqual(offset(z, 1_173_596_399).abbreviation, "EST")  // 2007-03-11T06:59:59Z POSIX
        XCTAssertEqual(offset(z, 1_173_596_400).abbreviation, "EDT")  // 2007-03-11T07:00:00Z POSIX
    }

    /// A crafted file of about 610 KB: 18,000 transitions interleaved with 18,000 leap-second records.
    /// Reading it used to search the leap list once per transition (quadratic: 37 s for such a file);
    /// it now walks both lists together. Checks the mapping at every transition, not the time taken.
    func testManyLeapSecondsAndTransitions_parseLinearly_withTheCorrectionInForce() throws {
        let count = 18_000
        var f = TZifFixture()
        f.types = [TZifFixture.LocalType(utoff: 0, isdst: 0, abbreviation: "AAA"),
                   TZifFixture.LocalType(utoff: 3600, isdst: 1, abbreviation: "BBB")]
        // Leap k at 1000·k (correction k+1 from then on), transition k at 1000·k + 500 in the leap scale.
        f.leapSeconds = (0..<count).map { (Int64($0) * 1000, Int32($0 + 1)) }
        f.transitions = (0..<count).map { Int64($0) * 1000 + 500 }
        f.transitionTypes = (0..<count).map { UInt8(($0 + 1) % 2) }
        let bytes = f.bytes()
        XCTAssertGreaterThan(bytes.count, 600_000)
        let z = try TimeZoneRules(tzif: bytes, name: "right/Crafted")
        XCTAssertEqual(z.transitions.count, count + 1)
        for k in 0..<count {
            let posix = Int64(k) * 1000 + 500 - Int64(k + 1)
            XCTAssertEqual(z.transitions[k + 1], posix, "transition \(k)")
            XCTAssertEqual(z.offset(atSeconds: posix).abbreviation, k % 2 == 0 ? "BBB" : "AAA", "transition \(k)")
        }
    }

    func testCorruptHeaders_throwNamedErrors() {
        let good = TZifFixture.newYorkLike.bytes()
        let cases: [(String, [UInt8], String)] = [
            ("empty", [], "invalid TZif header: truncated"),
            ("bad magic", Array("TZiX".utf8) + good.dropFirst(4), "invalid TZif header: bad magic"),
            ("bad version", Array(good[0..<4]) + [UInt8(ascii: "9")] + good.dropFirst(5), "invalid TZif header: unsupported version"),
            ("zero typecnt", patched(good, at: 20 + 16, with: [0, 0, 0, 0]), "invalid TZif header: typecnt is zero"),
            ("huge timecnt", patched(good, at: 20 + 12, with: [0x7f, 0xff, 0xff, 0xff]), "invalid TZif data: truncated"),
            ("bad footer", Array(good.dropLast(3)) + Array("?\n".utf8), "invalid TZif footer"),
            ("no footer newline", Array(good.dropLast(1)), "invalid TZif footer: not terminated"),
        ]
        for (label, bytes, expected) in cases {
            XCTAssertThrowsError(try TimeZoneRules(tzif: bytes, name: "X"), label) { error in
                XCTAssertTrue("\(error)".hasPrefix(expected), "\(label): \(error)")
            }
        }
    }

    func testDescendingTransitions_andBadTypeIndex_rejected() {
        var f = TZifFixture.newYorkLike
        f.transitions.swapAt(1, 2)
        XCTAssertThrowsError(try TimeZoneRules(tzif: f.bytes(), name: "X")) {
            XCTAssertTrue("\($0)".contains("not ascending"), "\($0)")
        }
        var g = TZifFixture.newYorkLike
        g.transitionTypes[1] = 7
        XCTAssertThrowsError(try TimeZoneRules(tzif: g.bytes(), name: "X")) {
            XCTAssertTrue("\($0)".contains("has type 7"), "\($0)")
        }
    }

    func testEveryTruncation_throwsWithoutTrapping() {
        for version: UInt8 in [0, 2] {
            var f = TZifFixture.newYorkLike
            f.version = version
            let good = f.bytes()
            XCTAssertNoThrow(try TimeZoneRules(tzif: good, name: "X"))
            for cut in 0..<good.count {
                XCTAssertThrowsError(try TimeZoneRules(tzif: good[0..<cut], name: "X"), "v\(version) cut at \(cut)") {
                    XCTAssertTrue("\($0)".hasPrefix("invalid TZif"), "\($0)")
                }
            }
        }
    }

    func testRandomAndMutatedBytes_neverTrap() {
        var rng = SplitMix64(seed: 0x5EED_7A1F)
        let good = TZifFixture.newYorkLike.bytes()
        var parsed = 0, rejected = 0
        for i in 0..<20_000 {
            var bytes: [UInt8]
            if i % 2 == 0 {
                bytes = (0..<Int.random(in: 0...200, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                if i % 4 == 0 && bytes.count >= 5 { bytes.replaceSubrange(0..<5, with: Array("TZif2".utf8)) }
            } else {
                bytes = good
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
            }
            guard let z = try? TimeZoneRules(tzif: bytes, name: "Fuzz") else { rejected += 1; continue }
            parsed += 1
            // Whatever parsed must answer queries without trapping, and consistently: the wall time
            // of any instant exists (not a gap) and lists that instant among its candidates.
            for _ in 0..<4 {
                let t = Instant(seconds: Int64.random(in: -10_000_000_000...10_000_000_000, using: &rng))
                let wall = z.localDateTime(at: t)
                XCTAssertNotEqual(z.resolve(wall).kind, .gap, "\(t) \(wall)")
                let c = z.wallCandidates(wall)
                XCTAssertTrue(c.first == t || c.second == t, "\(t) \(wall) \(c)")
            }
        }
        XCTAssertGreaterThan(rejected, 0)
        XCTAssertGreaterThan(parsed, 0, "some mutations (e.g. in abbreviations or times) must still parse")
    }

    private func patched(_ bytes: [UInt8], at offset: Int, with new: [UInt8]) -> [UInt8] {
        var b = bytes
        b.replaceSubrange(offset..<(offset + new.count), with: new)
        return b
    }
}
