import ScheddService
import XCTest

/// The fair queue on its own (issue 31 item 4; docs/faults.md "Fair service"): lanes served in turn, one
/// call per loop iteration, order kept within a lane, a drained lane's calls run at once and in order.
final class FairQueueTests: XCTestCase {
    func testAFloodOfOneApp_putsAtMostOneCallBeforeAnotherAppsCall() {
        let queue = FairQueue(), trigger = ManualTrigger()
        queue.trigger = trigger
        var served: [String] = []
        for i in 0..<360 { queue.enqueue(lane: "flood") { served.append("flood\(i)") } }
        queue.enqueue(lane: "victim") { served.append("victim") }
        queue.enqueue(lane: "") { served.append("clock") }
        XCTAssertEqual(served, [], "nothing runs before the loop's turn")
        var iterations = 0
        while queue.waiting > 0 {
            queue.serveNext()
            iterations += 1
        }
        XCTAssertEqual(iterations, 362, "one call per iteration")
        XCTAssertEqual(Array(served.prefix(3)), ["flood0", "victim", "clock"])
        XCTAssertEqual(served.filter { $0.hasPrefix("flood") }, (0..<360).map { "flood\($0)" }, "FIFO within a lane")
        XCTAssertGreaterThan(trigger.pulls, 0)
    }

    func testDrainingALane_runsItsCallsInOrder_andLaterCallsGetTheirTurn() {
        let queue = FairQueue()
        queue.trigger = ManualTrigger()
        var served: [String] = []
        for i in 0..<3 { queue.enqueue(lane: "a") { served.append("a\(i)") } }
        queue.enqueue(lane: "b") { served.append("b0") }
        queue.drain(lane: "a")
        XCTAssertEqual(served, ["a0", "a1", "a2"])
        queue.enqueue(lane: "a") { served.append("a3") }
        while queue.waiting > 0 { queue.serveNext() }
        XCTAssertEqual(served, ["a0", "a1", "a2", "b0", "a3"])
    }

    func testWithoutATrigger_aCallRunsAtOnce() {
        let queue = FairQueue()
        var ran = false
        queue.enqueue(lane: "a") { ran = true }
        XCTAssertTrue(ran)
    }
}
