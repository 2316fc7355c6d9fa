import SeededRandomness
import XCTest
import SchedCalendar

/// `ISODateTime` and `CivilDateTime(parsing:)`: the wall-time grammar shared by `at`, `until` and
/// `schedd resolve`.
final class PushDecoderWallTimeTests: XCTestCase {
    private func parse(_ text: String, allowOffset: Bool = true, space: Bool = false) -> Result<ISODateTime, WallTimeParseError> {
        do throws(WallTimeParseError) {
            return .success(try ISODateTime(parsing: text, allowOffset: allowOffset, allowSpaceSeparator: space))
        } catch {
            return .failure(error)
        }
    }

    func testAcceptedForms() throws {
        let cases: [(String, CivilDateTime, Int?)] = [
            ("2026-03-08T02:30", CivilDateTime(year: 2026, month: 3, day: 8, hour: 2, minute: 30), nil),
            ("2026-03-08T02:30:59", CivilDateTime(year: 2026, month: 3, day: 8, hour: 2, minute: 30, second: 59), nil),
            ("0001-01-01T00:00", CivilDateTime(year: 1, month: 1, day: 1), nil),
            ("9999-12-31T23:59:59Z", CivilDateTime(year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59), 0),
            ("2000-02-29T00:00+23:59", CivilDateTime(year: 2000, month: 2, day: 29), 86_340),
            ("2026-01-01T00:00-09:30", CivilDateTime(year: 2026, month: 1, day: 1), -34_200),
            ("2026-01-01T00:00:00.5", CivilDateTime(year: 2026, month: 1, day: 1, microsecond: 500_000), nil),
            ("2026-01-01T00:00:00.000001Z", CivilDateTime(year: 2026, month: 1, day: 1, microsecond: 1), 0),
            ("2026-01-01T00:00:00.999999999Z", CivilDateTime(year: 2026, month: 1, day: 1, microsecond: 999_999), 0),
        ]
        for (text, wall, offset) in cases {
            XCTAssertEqual(try parse(text).get(), ISODateTime(wall: wall, offsetSeconds: offset), text)
        }
        XCTAssertEqual(try parse("2026-03-08T02:30-05:00").get().instant, Instant(seconds: 1_772_955_000)) // 07:30Z
        XCTAssertNil(try parse("2026-03-08T02:30").get().instant)
    }

    func testRejectionsSayWhy() {
        let cases: [(String, String)] = [
            ("2026-02-30T10:00", "2026-02-30T10:00 is not a date"),
            ("2026-13-01T10:00", "2026-13-01T10:00 is not a date"),
            ("2026-03-01T24:00", "2026-03-01T24:00 is not a time"),
            ("2026-03-01T23:59:60", "2026-03-01T23:59:60 is not a time"),
            ("2026-03-01T10:00-00:60", "2026-03-01T10:00-00:60 has an invalid UTC offset"),
            ("2026-03-01T10", "\"2026-03-01T10\" is not YYYY-MM-DDTHH:MM[:SS] with an optional Z or ±HH:MM"),
            ("2026-03-01T10:00Z ", "\"2026-03-01T10:00Z \" is not YYYY-MM-DDTHH:MM[:SS] with an optional Z or ±HH:MM"),
            ("", "\"\" is not YYYY-MM-DDTHH:MM[:SS] with an optional Z or ±HH:MM"),
            ("２０２６-03-01T10:00", "\"２０２６-03-01T10:00\" is not YYYY-MM-DDTHH:MM[:SS] with an optional Z or ±HH:MM"),
        ]
        for (text, message) in cases {
            guard case .failure(let e) = parse(text) else { XCTFail("accepted \(text)"); continue }
            XCTAssertEqual(e.description, message)
        }
        let long = String(repeating: "x", count: 100)
        guard case .failure(let e) = parse(long) else { return XCTFail("accepted") }
        XCTAssertEqual(e.description, "\"" + String(repeating: "x", count: 64) + "…\" is not YYYY-MM-DDTHH:MM[:SS] with an optional Z or ±HH:MM")
    }

    func testCivilDateTimeParsingForResolve() throws {
        XCTAssertEqual(try CivilDateTime(parsing: "2026-11-01 01:30"), CivilDateTime(year: 2026, month: 11, day: 1, hour: 1, minute: 30))
        XCTAssertEqual(try CivilDateTime(parsing: "2026-11-01T01:30:15"),
                       CivilDateTime(year: 2026, month: 11, day: 1, hour: 1, minute: 30, second: 15))
        XCTAssertThrowsError(try CivilDateTime(parsing: "2026-11-01T01:30Z")) { error in
            XCTAssertEqual((error as? WallTimeParseError)?.kind, .unexpectedOffset)
        }
        XCTAssertThrowsError(try CivilDateTime(parsing: "2026-11-01  01:30"))
        guard case .failure = parse("2026-11-01 01:30") else { return XCTFail("space accepted without the option") }
    }

    func testRandomTextNeverTraps() {
        var rng = SplitMix64(seed: 77)
        let alphabet = Array("0123456789-:T Z+.z\u{0}é".unicodeScalars)
        var accepted = 0
        for _ in 0..<20_000 {
            var s = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...30, using: &rng) { s.append(alphabet.randomElement(using: &rng)!) }
            if case .success(let t) = parse(String(s), space: true) {
                accepted += 1
                XCTAssertTrue(t.wall.isValid, String(s))
            }
        }
        // Also mutate a valid time digit by digit: every result is either valid or rejected.
        let base = Array("2026-03-08T02:30:00+05:30".utf8)
        for i in base.indices {
            for b in UInt8(ascii: "0")...UInt8(ascii: "9") {
                var m = base
                m[i] = b
                if case .success(let t) = parse(String(decoding: m, as: UTF8.self)) {
                    accepted += 1
                    XCTAssertTrue(t.wall.isValid)
                    XCTAssertLessThan(abs(t.offsetSeconds ?? 0), 86_400)
                }
            }
        }
        XCTAssertGreaterThan(accepted, 0)
    }
}
