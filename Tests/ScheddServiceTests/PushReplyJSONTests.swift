import SchedCalendar
import Scheduler
import ScheddService
import XCTest

/// A `Push` answers `outcomesJSON`, written straight into bytes: it must be the text of
/// `JSONValue(outcome:)` serialized (CONTRACT §7 "Push answers"), for every shape of outcome.
final class PushReplyJSONTests: XCTestCase {
    private let due = Instant(microseconds: 1_772_946_060_000_000)  // 2026-03-08T05:01:00Z

    func testTheUsualOutcomesAreWrittenAsTheContractShowsThem() {
        XCTAssertEqual(outcomesJSON([PushOutcome(id: "run_1:c", status: .scheduled, next: due)]),
                       #"[{"id":"run_1:c","status":"scheduled","next":"2026-03-08T05:01:00Z"}]"#)
        XCTAssertEqual(outcomesJSON([PushOutcome(id: "x", status: .missed, next: nil)]),
                       #"[{"id":"x","status":"missed","next":null}]"#)
        XCTAssertEqual(outcomesJSON([PushOutcome(id: "q\"\\\n\u{1}é", status: .duplicate, next: due.adding(microseconds: 250_000))]),
                       #"[{"id":"q\"\\\n\u0001é","status":"duplicate","next":"2026-03-08T05:01:00.25Z"}]"#)
        XCTAssertEqual(outcomesJSON([]), "[]")
    }

    func testEveryShapeMatchesTheJSONValueOfTheOutcome() {
        let shapes = [
            PushOutcome(id: "run_1", status: .cancelled, next: nil, cancelled: ["run_1:a", "run_1:b"], closed: ["run_1:a"], isRun: true),
            PushOutcome(id: "a", status: .cancelled, next: nil, cancelled: [], closed: []),
            PushOutcome(id: "a", status: .replaced, next: due),
            PushOutcome(id: "r", status: .scheduled, next: due, isRun: true),
            PushOutcome(id: "", status: .scheduled, next: Instant(microseconds: 0)),
        ]
        for shape in shapes {
            XCTAssertEqual(outcomesJSON([shape]), JSONValue.array([JSONValue(outcome: shape)]).serialized())
        }
        XCTAssertEqual(outcomesJSON(shapes), JSONValue.array(shapes.map(JSONValue.init(outcome:))).serialized())
    }
}
