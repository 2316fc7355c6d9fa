import SystemZones
import SeededRandomness
import SchedCalendar
import XCTest

/// Property tests: arbitrary text never traps the parser, every rejection says where, and every
/// accepted expression's normalized form parses back to itself with the same elapses.
final class CalendarSpecPropertyTests: XCTestCase {
    func testArbitraryText_neverTraps_andAcceptedFormsRoundTrip() throws {
        var generator = CalendarSpecGenerator(random: SplitMix64(seed: 7), suffixZones: [])
        var random = SplitMix64(seed: 8)
        var accepted = 0, rejected = 0
        for i in 0..<20_000 {
            var text = i % 2 == 0 ? generator.garbage() : generator.expression()
            if random.chance(0.1) {
                // Arbitrary bytes spliced in, including non-ASCII.
                let junk = String(decoding: (0..<random.int(1...4)).map { _ in UInt8(random.int(0...255)) }, as: UTF8.self)
                let at = text.index(text.startIndex, offsetBy: random.int(0...text.count))
                text.insert(contentsOf: junk, at: at)
            }
            do {
                let spec = try CalendarSpec(parsing: text, zones: ZoneDatabase.shared)
                accepted += 1
                let again = try CalendarSpec(parsing: spec.normalized, zones: ZoneDatabase.shared)
                XCTAssertEqual(again.normalized, spec.normalized, "'\(text)'")
                let base = Instant(seconds: Int64(random.int(0...7_000_000_000)))
                XCTAssertEqual(again.nextElapse(after: base, in: .utc), spec.nextElapse(after: base, in: .utc), "'\(text)'")
            } catch {
                rejected += 1
                XCTAssertTrue(error.message.hasPrefix("calendar: '"), error.message)
                XCTAssertTrue(error.message.contains(" at offset ") || error.message.hasSuffix("empty expression"),
                              error.message)
            }
        }
        XCTAssertGreaterThan(accepted, 1000)
        XCTAssertGreaterThan(rejected, 1000)
    }
}
