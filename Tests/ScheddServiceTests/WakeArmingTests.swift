import Foundation
import SchedCalendar
@testable import Scheduler
import ScheddService
import XCTest

/// The wake timer's arming logic (CONTRACT §11 "Wake") against a timer source the test controls, over the
/// real service parts and SQLite store; and the capability probe for real on this machine.
final class WakeArmingTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "schedd-wake-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    /// Records what it was asked to do.
    final class RecordingTimer: WakeTimerSource {
        var armed: [Instant] = []
        var disarms = 0
        var refuse: String?
        func arm(at instant: Instant) throws(WakeTimerError) {
            if let refuse { throw WakeTimerError(refuse) }
            armed.append(instant)
        }
        func disarm() { disarms += 1 }
    }

    private func push(_ p: ServiceParts, _ json: String) throws -> String {
        let answers = p.serve(.push(json), caller: Caller(app: Engine.defaultApp, sandboxed: false))
        p.group.flush()
        guard case .success(.string(let text))? = answers().first else { XCTFail("no answer: \(answers())"); return "" }
        return text
    }

    private func at(_ text: String) -> Instant { instant(fromTimeText: text, in: .utc)! }

    func testArmsTheEarliestWakeSchedule_minusTheLead_andFollowsItAsItChanges() throws {
        let timer = RecordingTimer()
        let p = try ServiceParts(databasePath: directory + "/db", start: at("2026-03-02T08:00:00Z"), wake: (.armed, timer))
        let state = p.sleep

        _ = try push(p, #"{"bk":{"local":{"id":"plain","at":"2026-03-02T08:30:00Z","title":"no wake"}}}"#)
        XCTAssertEqual(timer.armed, [], "nothing to wake for")
        let answer = try push(p, #"{"bk":{"local":{"id":"w1","at":"2026-03-02T10:00:00Z","title":"w","wake":true}}}"#)
        XCTAssertTrue(answer.contains(#""wake":"armed""#), answer)
        XCTAssertEqual(timer.armed, [at("2026-03-02T09:59:30Z")], "30 s before the due")
        XCTAssertEqual(state.wakeTimer, "armed for 2026-03-02T09:59:30Z (30 s before 2026-03-02T10:00:00Z)")

        _ = try push(p, #"{"bk":{"local":{"id":"a1","at":"2026-03-02T09:00:00Z","title":"alarm","alarm":true}}}"#)
        XCTAssertEqual(timer.armed.last, at("2026-03-02T08:59:30Z"), "an earlier alarm (alarms imply wake) moves it")
        _ = try push(p, #"{"bk":{"local":{"id":"w2","at":"2026-03-02T11:00:00Z","title":"later","wake":true}}}"#)
        XCTAssertEqual(timer.armed.count, 2, "a later wake schedule changes nothing")

        _ = try p.json(p.service, .clockAdvance(microseconds: 3_600_000_000))  // 09:00: the alarm fires
        XCTAssertEqual(timer.armed.last, at("2026-03-02T09:59:30Z"), "re-armed on the next one after it fired")
        _ = try p.json(p.service, .clockAdvance(microseconds: 7_200_000_000))  // 11:00: both fire
        XCTAssertEqual(timer.disarms, 1, "disarmed when no wake schedule is left")
        XCTAssertEqual(state.wakeTimer, "idle (no wake schedule)")
    }

    func testWithoutASource_saysWhyAndArmsNothing() throws {
        let p = try ServiceParts(databasePath: directory + "/db", start: at("2026-03-02T08:00:00Z"),
                                 wake: (.unavailable("no RTC alarm device (test)"), nil))
        let state = p.sleep
        let answer = try push(p, #"{"bk":{"local":{"id":"w","at":"2026-03-02T10:00:00Z","title":"w","wake":true}}}"#)
        XCTAssertTrue(answer.contains(#""wake":"unavailable","wakeReason":"no RTC alarm device (test)""#), answer)
        XCTAssertTrue(state.wakeTimer.hasPrefix("unavailable: no RTC alarm device (test)"), state.wakeTimer)
    }

    func testATimerThatRefuses_isReportedAsUnavailable() throws {
        let timer = RecordingTimer()
        timer.refuse = "arm the wake timer: EINVAL"
        let p = try ServiceParts(databasePath: directory + "/db", start: at("2026-03-02T08:00:00Z"), wake: (.armed, timer))
        let state = p.sleep
        _ = try push(p, #"{"bk":{"local":{"id":"w","at":"2026-03-02T10:00:00Z","title":"w","wake":true}}}"#)
        XCTAssertEqual(state.wakeTimer, "unavailable: arm the wake timer: EINVAL")
        XCTAssertTrue(p.recorder.lines.contains { $0.contains("cannot arm the wake timer") })
    }
}

extension ServiceParts {
    /// Serves a clock call and returns its string answer, after its delivery.
    func json(_ service: Service, _ call: SchedulerCall) throws -> String {
        let answers = serve(call, caller: Caller(app: Engine.defaultApp, sandboxed: false))
        while delivery.isDelivering { delivery.continueDelivery() }
        guard case .success(.string(let text))? = answers().first else { throw TestSetupError("no answer to \(call)") }
        return text
    }
}
