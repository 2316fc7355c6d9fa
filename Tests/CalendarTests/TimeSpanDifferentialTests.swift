import SeededRandomness
import SchedCalendar
import XCTest

/// `TimeSpan.parse` and `TimeSpan.format` against `systemd-analyze timespan` (systemd 252): the
/// cases of systemd's own `src/test/test-time-util.c` (`test_parse_sec`, `test_parse_time`,
/// `test_format_timespan`) and 300 seeded generated spans. Every expected value comes from the
/// reference at run time; nothing is written down here but the inputs.
final class TimeSpanDifferentialTests: XCTestCase {
    /// The inputs of systemd's test_parse_sec / test_parse_time, accepted and rejected ones alike.
    static let systemdCases = [
        "5s", "5s500ms", " 5s 500ms  ", " 5.5s  ", " 5.5s 0.5ms ", " .22s ", " .50y ", "2.5", ".7", "23us", "23μs",
        "23µs", "infinity", " infinity ", "+3.1s", "3.1s.2", "3.1 .2", "3.1 sec .2 sec", "3.1 sec 1.2 sec",
        " xyz ", "", " . ", " 5. ", ".s ", "-5s ", "-0.3s ", "-0.0s ", "-0.-0s ", "0.-0s ", "3.-0s ", " infinity .7",
        ".3 infinity", "3.+1s", "3. 1s", "3.s", "12.34.56", "12..34", "..1234", "1234..", "5", "5s", "5ms", "11",
        "11min", "1 hour", "2 days 3 hours", "1y 2M 3w 4d 5h 6min 7s 8ms 9us", "18446744073709551615",
        "18446744073709551616", "9223372036854775807us", "9223372036854775808us", "1.5us", "0.0000005s",
        "1 months", "5 mins", "3 weeks", "10000000000y", "1\t2", "\u{0B}5s", "\u{0B}-0s",
    ]

    func testSystemdsOwnCases_parseAndFormatAsSystemdAnalyze() throws {
        try compare(Self.systemdCases)
    }

    func testSeededGeneratedSpans_parseAndFormatAsSystemdAnalyze() throws {
        var rng = SplitMix64(seed: 0x7157_5AA9)
        var spans: Set<String> = []
        while spans.count < 300 { spans.insert(Self.randomSpan(using: &rng)) }
        let accepted = try compare(spans.sorted())
        // The generator must exercise both sides of the grammar.
        XCTAssertGreaterThan(accepted, 90, "too few accepted spans")
        XCTAssertLessThan(accepted, 270, "too few rejected spans")
    }

    /// A span from the parts systemd's grammar has, mostly valid, often wrong in one place.
    static func randomSpan(using rng: inout SplitMix64) -> String {
        let units = ["", "", "s", "sec", "seconds", "second", "m", "min", "minute", "minutes", "mins", "h", "hr",
                     "hour", "hours", "d", "day", "days", "w", "week", "weeks", "M", "month", "months", "y", "year",
                     "years", "ms", "msec", "us", "usec", "μs", "µs", "u", "x", "S", "H", "secs"]
        let spaces = ["", "", " ", "  ", "\t", " \t"]
        var text = rng.chance(0.1) ? rng.pick(spaces) : ""
        if rng.chance(0.03) { return text + "infinity" + rng.pick(spaces) + (rng.chance(0.3) ? "1s" : "") }
        for _ in 0..<rng.int(1...4) {
            if rng.chance(0.05) { text += rng.pick(["+", "-"]) }
            let digits = rng.chance(0.05) ? rng.int(15...21) : rng.int(0...3)
            var number = (0..<digits).map { _ in String(rng.below(10)) }.joined()
            if number.isEmpty && !rng.chance(0.2) { number = "1" }
            text += number
            if rng.chance(0.3) {
                text += "." + (0..<rng.int(0...7)).map { _ in String(rng.below(10)) }.joined()
            }
            text += rng.pick(spaces) + rng.pick(units) + rng.pick(spaces)
        }
        return text
    }

    /// Compares every span; returns how many the reference accepted.
    @discardableResult
    private func compare(_ spans: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        var accepted = 0
        for span in spans {
            let reference = try ReferenceRun.run("/usr/bin/systemd-analyze", ["timespan", "--", span],
                                                 environment: ["LC_ALL": "C.UTF-8"])
            let ours = Result { try TimeSpan.parse(span) }
            guard reference.status == 0 else {
                if case .success(let value) = ours {
                    XCTFail("'\(span)': systemd rejects it (\(reference.stderr)), we read \(value)", file: file, line: line)
                }
                continue
            }
            accepted += 1
            let lines = reference.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let micro = lines.first(where: { $0.hasPrefix("μs:") }).flatMap({ UInt64($0.dropFirst(3).trimmingCharacters(in: .whitespaces)) }),
                  let human = lines.first(where: { $0.hasPrefix("Human:") })?.dropFirst(6).trimmingCharacters(in: .whitespaces) else {
                XCTFail("'\(span)': unreadable reference output \(reference.stdout)", file: file, line: line)
                continue
            }
            switch ours {
            case .success(let value):
                XCTAssertEqual(value, micro, "'\(span)'", file: file, line: line)
                XCTAssertEqual(TimeSpan.format(value), human, "format of '\(span)'", file: file, line: line)
            case .failure(let error):
                XCTFail("'\(span)': systemd reads \(micro), we reject it: \(error)", file: file, line: line)
            }
        }
        return accepted
    }
}
