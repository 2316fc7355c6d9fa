import SystemZones
import SeededRandomness
import SchedCalendar
import XCTest

/// `TimeSpan.parse` and `SystemdTimestamp.parse` take command-line text: seeded random inputs —
/// bytes, near-misses of the grammar, huge numbers — either parse or throw, never trap, and an
/// accepted span reads back from its own formatting (`format` writes what `parse` reads).
final class SystemdTimeParsingRobustnessTests: XCTestCase {
    func testRandomInputs_neverTrap_andFormattedSpansReadBack() throws {
        var rng = SplitMix64(seed: 0xBAD5_7A11)
        let zone = try ZoneDatabase().zone(named: "America/New_York")
        let pieces = ["1", "9", "0", ".", "..", "+", "-", " ", "\t", "\u{0B}", "s", "min", "M", "μs", "µs", "y", "infinity",
                      "99999999999999999999", "@", "now", "today", "tomorrow", " UTC", " EST", " EDT", "ago", " left", ":",
                      "2026-03-08", "02:30", "Sun ", "Mar ", "\u{0}", "é", "会", "\u{FFFD}", "T", "Z", "60", "31", "-02-"]
        var accepted = 0
        for _ in 0..<20_000 {
            var text = ""
            for _ in 0..<rng.int(0...8) {
                if rng.chance(0.1) {
                    text.unicodeScalars.append(Unicode.Scalar(UInt8(rng.below(128))))
                } else {
                    text += rng.pick(pieces)
                }
            }
            if let span = try? TimeSpan.parse(text) {
                accepted += 1
                XCTAssertEqual(try TimeSpan.parse(TimeSpan.format(span)), span, "format of '\(text)' = '\(TimeSpan.format(span))'")
            }
            var state = SystemdTimestamp.GlibcState(mktimeGuess: rng.pick([0, -18_000, -14_400, 3600]))
            _ = try? SystemdTimestamp.parse(text, now: Instant(seconds: Int64(rng.int(0...4_000_000_000))), zone: zone,
                                            state: &state, isZoneName: { $0 == "UTC" || $0 == "EST" })
        }
        XCTAssertGreaterThan(accepted, 100, "the generator should hit valid spans too")
    }
}
