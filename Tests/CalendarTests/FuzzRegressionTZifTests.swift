@testable import SchedCalendar
import XCTest

/// Regressions found by the TZif fuzz harness (docs/fuzzing.md).
final class FuzzRegressionTZifTests: XCTestCase {
    /// Footer `NNX2EDT4,1/0,J365/54`: DST (UTC−4) starts on Jan 2 00:00 and ends 54 h after Dec 31,
    /// i.e. on Jan 2 of the *next* year, after that year's start. At 1900-01-01T02:00Z glibc (which
    /// looks only at the instant's own year: DST from 1900-01-02T02:00Z) and "the latest change wins"
    /// (1898's DST end, 1899-01-02T10:00Z) both say standard time (UTC−2). The fuzzer found
    /// `offset(at:)` saying DST while `resolve` read 1900-01-01 00:00 as unique at 02:00Z.
    func testFooterWhoseDSTEndSpillsPastNextStart_offsetAgreesWithResolve() throws {
        var fixture = TZifFixture()
        fixture.types = [.init(utoff: -7200, isdst: 0, abbreviation: "NNX")]
        fixture.footer = "NNX2EDT4,1/0,J365/54"
        let rules = try TimeZoneRules(tzif: fixture.bytes(), name: "fuzz")
        let wall = CivilDateTime(year: 1900, month: 1, day: 1)
        let resolved = rules.resolve(wall)
        XCTAssertEqual(rules.localDateTime(at: resolved.instant), wall, "resolved \(resolved)")
        XCTAssertEqual(rules.offset(at: Instant(seconds: -2_208_981_600)).utcOffsetSeconds, -7200)
    }
}
