import Dispatch
import Foundation
import SchedCalendar
@testable import Scheduler
import ScheddService
import SystemZones
import XCTest

/// PushBatch calls decoded on the decoder's thread (`PushBatchDecoder`) keep their place in the group
/// commit's queue: a later write waits for them, `flushReady` commits only what comes before a batch still
/// decoding, a full `flush` (what any other call does first) waits for every one, and `stop` decodes
/// what the thread did not take. The thread here starts only when the test opens its gate, so "still
/// decoding" is a state the test controls, not a race. The real daemon runs the same parts
/// (BoundedCallsTests, CLIPushTests: NDJSON loads of more than `PushBatchDecoder.minimumEntries` lines).
final class PushBatchDecoderTests: XCTestCase {
    private var directory: String!

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "schedd-decoder-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    private let start = Instant(seconds: 1_772_946_000)  // 2026-03-08T05:00:00Z
    private let caller = Caller(app: Engine.defaultApp, sandboxed: false)

    private func push(_ id: String, at: String) -> String {
        #"{"bk":{"local":{"id":"\#(id)","at":"\#(at)","title":"T"}}}"#
    }

    /// The parts with a decoder whose thread waits for `gate` before it takes any job.
    private func parts(gate: DispatchSemaphore) throws -> (ServiceParts, ManualTrigger, PushBatchDecoder) {
        let decoder = PushBatchDecoder()
        XCTAssertTrue(decoder.start { body in
            Thread { gate.wait(); body() }.start()
            return true
        })
        let p = try ServiceParts(databasePath: directory + "/s.db", start: start, looped: [.groupCommit], batchDecoder: decoder)
        let trigger = try XCTUnwrap(p.loop.triggers[.groupCommit])
        return (p, trigger, decoder)
    }

    private func batch(_ prefix: String, count: Int = PushBatchDecoder.minimumEntries, at: String) -> SchedulerCall {
        .pushBatch((0..<count).map { push("\(prefix)\($0)", at: at) })
    }

    /// The `status` of each answered push, in order (an entry's first outcome; an error as "error").
    private func statuses(_ answers: [Result<CallAnswer, ServiceFailure>]) -> [String] {
        func status(_ text: String) -> String {
            guard let range = text.range(of: #""status":""#) else { return text.contains(#""error""#) ? "error" : text }
            return String(text[range.upperBound...].prefix { $0 != "\"" })
        }
        return answers.flatMap { answer -> [String] in
            switch answer {
            case .success(.strings(let texts)): texts.map(status)
            case .success(.string(let text)): [status(text)]
            default: ["\(answer)"]
            }
        }
    }

    func testALaterPushOfTheSameId_waitsForTheBatchStillDecodingBeforeIt() throws {
        let gate = DispatchSemaphore(value: 0)
        let (p, _, decoder) = try parts(gate: gate)
        defer { decoder.stop(); gate.signal() }
        let batchAnswers = p.serve(batch("b_", at: "2026-03-08T06:00:00Z"), caller: caller)
        let later = p.serve(.push(push("b_0", at: "2026-03-08T07:00:00Z")), caller: caller)
        XCTAssertEqual(p.group.waitingCount, 2, "the batch waits in its place, the push behind it")
        XCTAssertTrue(batchAnswers().isEmpty && later().isEmpty)
        gate.signal()
        p.group.flushReady()  // waits for the batch (first in the queue), then takes the push after it
        XCTAssertEqual(statuses(batchAnswers()), Array(repeating: "scheduled", count: PushBatchDecoder.minimumEntries))
        XCTAssertEqual(statuses(later()), ["replaced"], "applied after the batch, as it came")
        let b0 = try XCTUnwrap(p.engine.list(limit: nil).first { $0.id == "b_0" })
        XCTAssertEqual(b0.next, Instant(seconds: 1_772_953_200), "the later push's 07:00 stands")
        XCTAssertEqual(p.group.statistics.commits, 1)
    }

    func testFlushReady_commitsWhatComesBeforeABatchStillDecoding_andPullsTheTriggerForTheRest() throws {
        let gate = DispatchSemaphore(value: 0)
        let (p, trigger, decoder) = try parts(gate: gate)
        defer { decoder.stop(); gate.signal() }
        let first = p.serve(.push(push("one", at: "2026-03-08T06:00:00Z")), caller: caller)
        let decoding = p.serve(batch("d_", at: "2026-03-08T06:30:00Z"), caller: caller)
        let pulls = trigger.pulls
        p.group.flushReady()
        XCTAssertEqual(statuses(first()), ["scheduled"], "the write before the batch is committed and answered")
        XCTAssertTrue(decoding().isEmpty, "the batch still decoding is not waited for: it is not first")
        XCTAssertEqual(p.group.waitingCount, 1)
        XCTAssertEqual(trigger.pulls, pulls + 1, "its turn is the next loop iteration")
        XCTAssertEqual(p.engine.pendingCount, 1)
        gate.signal()
        p.group.flushReady()
        XCTAssertEqual(statuses(decoding()).count, PushBatchDecoder.minimumEntries)
        XCTAssertEqual(p.group.waitingCount, 0)
        XCTAssertEqual(p.engine.pendingCount, 1 + PushBatchDecoder.minimumEntries)
    }

    func testAnyOtherCall_waitsForEveryBatchStillDecoding_andSeesIt() throws {
        let gate = DispatchSemaphore(value: 0)
        let (p, _, decoder) = try parts(gate: gate)
        defer { decoder.stop(); gate.signal() }
        let a = p.serve(batch("a_", at: "2026-03-08T06:00:00Z"), caller: caller)
        let b = p.serve(batch("b_", at: "2026-03-08T06:00:00Z"), caller: caller)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { gate.signal() }
        let count = p.serve(.pendingCount, caller: caller)  // flushes first: waits for both decodes
        XCTAssertEqual(count().first.flatMap { try? $0.get() }, .count(UInt32(2 * PushBatchDecoder.minimumEntries)))
        XCTAssertEqual(statuses(a()).count + statuses(b()).count, 2 * PushBatchDecoder.minimumEntries)
    }

    func testABatchBelowTheMinimum_isDecodedAtOnce_andABadEntryAnsweredOnItsOwn() throws {
        let gate = DispatchSemaphore(value: 0)
        let (p, _, decoder) = try parts(gate: gate)  // the thread never runs: a small batch must not need it
        defer { decoder.stop(); gate.signal() }
        var texts = (0..<3).map { push("s_\($0)", at: "2026-03-08T06:00:00Z") }
        texts.insert(#"{"bk":{"local":{"id":"bad"}}}"#, at: 1)
        let answers = p.serve(.pushBatch(texts), caller: caller)
        p.group.flushReady()
        guard case .success(.strings(let replies))? = answers().first else { return XCTFail("\(answers())") }
        XCTAssertEqual(replies.count, 4)
        XCTAssertTrue(replies[1].contains("\"error\""), replies[1])
        XCTAssertEqual(statuses(answers()), ["scheduled", "error", "scheduled", "scheduled"])
    }

    func testStop_decodesWhatTheThreadDidNotTake() throws {
        let gate = DispatchSemaphore(value: 0)
        let (p, _, decoder) = try parts(gate: gate)
        let answers = p.serve(batch("x_", at: "2026-03-08T06:00:00Z"), caller: caller)
        decoder.stop()  // the thread has not started: the job is decoded here
        gate.signal()   // the thread then sees `stopping` and ends
        p.group.flushReady()
        XCTAssertEqual(statuses(answers()), Array(repeating: "scheduled", count: PushBatchDecoder.minimumEntries))
    }
}
