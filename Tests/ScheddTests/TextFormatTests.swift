@testable import schedd
import SchedCalendar
import ScheddService
import XCTest

/// Edit distance, time spans and the systemd-style relative wording.
final class TextFormatTests: XCTestCase {
    func testEditDistance_countsInsertionsDeletionsSubstitutionsAndTranspositions() {
        let cases: [(String, String, Int)] = [
            ("", "", 0), ("", "abc", 3), ("list", "list", 0), ("lsit", "list", 1), ("pus", "push", 1),
            ("kitten", "sitting", 3), ("histroy", "history", 1), ("clock", "lock", 1), ("abc", "xyz", 3),
        ]
        for (a, b, d) in cases {
            XCTAssertEqual(editDistance(a, b), d, "\(a) → \(b)")
            XCTAssertEqual(editDistance(b, a), d, "\(b) → \(a)")
        }
    }

    func testClosestMatch_suggestsOnlyCloseCandidates() {
        let names = commandTable.map(\.name)
        XCTAssertEqual(closestMatch(to: "pus", among: names), "push")
        XCTAssertEqual(closestMatch(to: "calender", among: names), "calendar")
        XCTAssertEqual(closestMatch(to: "res", among: names), "resolve")
        XCTAssertNil(closestMatch(to: "xyz", among: names))
        XCTAssertNil(closestMatch(to: "completely-different", among: names))
    }

    func testParseTimeSpan_acceptsSystemdSpans() {
        let cases: [(String, Int64?)] = [
            ("90s", 90_000_000), ("15min", 900_000_000), ("2h", 7_200_000_000), ("1d 6h", 108_000_000_000),
            ("1h30m", 5_400_000_000), ("500ms", 500_000), ("1.5h", 5_400_000_000), ("30", 30_000_000),
            ("2 weeks", 1_209_600_000_000), ("1y", 31_557_600_000_000), ("1M", 2_629_800_000_000),
            ("", nil), ("abc", nil), ("5 parsecs", nil), ("-5s", nil), ("200y", 6_311_520_000_000_000),
            ("+3.1s", 3_100_000), ("23μs", 23), (" 5. ", nil), ("3.s", nil), ("3. 1s", nil), ("infinity", nil),
            ("300000y", nil),
        ]
        for (text, expected) in cases { XCTAssertEqual(parseTimeSpan(text), expected, text) }
    }

    func testRelativeSpan_followsSystemdSteps() {
        let s: Int64 = 1_000_000
        let cases: [(Int64, String)] = [
            (0, "now"), (500, "500us"), (1500, "1ms"), (45 * s, "45s"), (90 * s, "1min 30s"), (10 * 60 * s, "10min"),
            (2 * 3600 * s + 5 * 60 * s, "2h 5min"), (13 * 3600 * s, "13h"), (28 * 3600 * s, "1 day 4h"),
            (3 * 86400 * s, "3 days"), (9 * 86400 * s, "1 week 2 days"), (40 * 86400 * s, "1 month 9 days"),
            (400 * 86400 * s, "1 year 1 month"),
        ]
        for (micros, text) in cases { XCTAssertEqual(formatRelativeSpan(microseconds: micros), text, "\(micros)") }
        XCTAssertEqual(relativeToNow(13 * 3600 * s), "13h left")
        XCTAssertEqual(relativeToNow(-3 * 86400 * s), "3 days ago")
    }

    func testFormatOffset_printsSignedHoursAndMinutes() {
        XCTAssertEqual(formatOffset(-18000), "-05:00")
        XCTAssertEqual(formatOffset(19800), "+05:30")
        XCTAssertEqual(formatOffset(0), "+00:00")
        XCTAssertEqual(formatOffset(-12600), "-03:30")
    }

    func testFormatTable_alignsColumns() {
        XCTAssertEqual(formatTable([["ID", "TITLE"], ["run_1:a", "Hi"]]), "ID       TITLE\nrun_1:a  Hi")
    }
}
