import ScheddService
import XCTest

/// The fair queue on its own (issue 31 item 4; docs/faults.md "Fair service"): lanes served in turn, one
/// call or a budget of writes per loop iteration, order kept within a lane, a drained lane's calls run at once and in order.
final class FairQueueTests: XCTestCase {
    func testAFloodOfOneApp_putsAtMostOneCallBeforeAnotherAppsCall() {
        let loop = HandLoop([.fairService])
        let queue = FairQueue(loop: loop)
        let trigger = loop.triggers[.fairService]!
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
        let queue = FairQueue(loop: HandLoop([.fairService]))
        var served: [String] = []
        for i in 0..<3 { queue.enqueue(lane: "a") { served.append("a\(i)") } }
        queue.enqueue(lane: "b") { served.append("b0") }
        queue.drain(lane: "a")
        XCTAssertEqual(served, ["a0", "a1", "a2"])
        queue.enqueue(lane: "a") { served.append("a3") }
        while queue.waiting > 0 { queue.serveNext() }
        XCTAssertEqual(served, ["a0", "a1", "a2", "b0", "a3"])
    }

    func testWrites_takeOneTurnOfAtMostTheBudget_andKeepTheirPlaceInTheLane() {
        let queue = FairQueue(loop: HandLoop([.fairService]))
        var served: [String] = []
        // A flood of costly writes (CancelRun-sized) and a read behind them, one push of another app.
        for i in 0..<300 { queue.enqueueWrite(lane: "flood", cost: FairQueue.writeBudget) { served.append("cancel\(i)") } }
        queue.enqueue(lane: "flood") { served.append("flood-list") }
        queue.enqueue(lane: "victim") { served.append("victim") }
        queue.serveNext()
        XCTAssertEqual(served, ["cancel0"], "one costly write per turn")
        queue.serveNext()
        XCTAssertEqual(served, ["cancel0", "victim"], "the other app's call in the next turn")
        while queue.waiting > 0 { queue.serveNext() }
        XCTAssertEqual(served.last, "flood-list", "order within the app kept")
        // Cheap writes share a turn up to the budget; the head writes of the lanes after it join the same turn.
        served = []
        for i in 0..<(FairQueue.writeBudget + 5) { queue.enqueueWrite(lane: "a", cost: 1) { served.append("a\(i)") } }
        queue.enqueueWrite(lane: "b", cost: 1) { served.append("b") }
        queue.enqueue(lane: "c") { served.append("c") }
        queue.serveNext()
        XCTAssertEqual(served.count, FairQueue.writeBudget + 1)
        XCTAssertEqual(served.last, "b")
        queue.serveNext()
        XCTAssertEqual(served.last, "c", "a call's lane is not skipped by a write turn")
        while queue.waiting > 0 { queue.serveNext() }
        XCTAssertEqual(served.count, FairQueue.writeBudget + 7)
    }

    /// A served call's work is let go at once, while its lane still has calls waiting: its closure holds
    /// what the call holds (a PushBatch's request and decoded pushes). Kept until the lane emptied, a bulk
    /// load whose lane never emptied held up to 1,023 served batches, ~1 GB (issue 35).
    func testAServedCall_letsGoOfWhatItHolds_whileItsLaneStillWaits() {
        final class Payload {}
        let queue = FairQueue(loop: HandLoop([.fairService]))
        var held: [Payload?] = (0..<10).map { _ in Payload() }
        weak let first = held[0], fifth = held[4]
        var ran = 0
        for i in 0..<10 {
            let payload = held[i]!
            queue.enqueueWrite(lane: "bulk", cost: FairQueue.writeBudget) { _ = payload; ran += 1 }
        }
        held = []
        XCTAssertNotNil(first, "a waiting call keeps what it holds")
        queue.serveNext()
        XCTAssertEqual(ran, 1)
        XCTAssertNil(first, "served: its work is gone, though nine calls still wait in its lane")
        XCTAssertNotNil(fifth)
        for _ in 0..<4 { queue.serveNext() }
        XCTAssertEqual(ran, 5)
        XCTAssertNil(fifth)
        while queue.waiting > 0 { queue.serveNext() }
        XCTAssertEqual(ran, 10)
    }

    func testWithoutATrigger_aCallRunsAtOnce() {
        let queue = FairQueue()
        var ran = false
        queue.enqueue(lane: "a") { ran = true }
        XCTAssertTrue(ran)
    }

    /// A cancellation slice (`CancelSlicing`) goes ahead of its app's waiting calls: the first at the lane's
    /// head, each next one behind one call, so the app's jobs and its calls alternate; other lanes keep
    /// their turns.
    func testWorkQueuedAhead_takesTheLanesNextTurn_orTheOneAfterOneCall() {
        let queue = FairQueue(loop: HandLoop([.fairService]))
        var served: [String] = []
        for i in 0..<3 { queue.enqueue(lane: "a") { served.append("a\(i)") } }
        queue.enqueue(lane: "b") { served.append("b0") }
        queue.enqueueAhead(lane: "a") { served.append("slice1") }
        queue.serveNext()
        XCTAssertEqual(served, ["slice1"], "the slice takes the app's next turn")
        queue.enqueueAhead(lane: "a", behind: 1) { served.append("slice2") }
        while queue.waiting > 0 { queue.serveNext() }
        XCTAssertEqual(served, ["slice1", "b0", "a0", "slice2", "a1", "a2"], "one call of the app between two slices")
        // Behind more calls than wait: at the lane's end; into an empty queue: a lane of its own.
        served = []
        queue.enqueue(lane: "c") { served.append("c0") }
        queue.enqueueAhead(lane: "c", behind: 5) { served.append("slice3") }
        queue.enqueueAhead(lane: "d") { served.append("slice4") }
        while queue.waiting > 0 { queue.serveNext() }
        XCTAssertEqual(served, ["c0", "slice4", "slice3"])
        // Without a trigger it runs at once.
        let direct = FairQueue()
        var ran = false
        direct.enqueueAhead(lane: "a") { ran = true }
        XCTAssertTrue(ran)
    }
}
