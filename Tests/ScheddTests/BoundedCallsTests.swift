import Foundation
import ScheddBus
import XCTest

/// Bounded requests and write replies against the real daemon on a stock bus (CONTRACT §9; issue 20
/// items 2 and 3): a PushBatch over either cap is refused whole and quickly, naming the cap, with
/// nothing stored, while another client's ClockShow is answered at once; a Track over many schedules
/// answers a count, a bounded list of ids and `more`.
final class BoundedCallsTests: XCTestCase {
    private static let scheduler = BusMethod(destination: "org.schedd.Scheduler1", path: "/org/schedd/Scheduler1",
                                             interface: "org.schedd.Scheduler1", member: "")

    private func method(_ member: String) -> BusMethod {
        var m = Self.scheduler
        m.member = member
        return m
    }

    private func pushBatch(_ bus: BusConnection, _ texts: [String]) throws(BusError) -> [String] {
        try bus.call(method("PushBatch"), timeoutMicroseconds: 300_000_000, { m throws(BusError) in try m.append(texts) },
                     read: { m throws(BusError) in try m.readStrings() })
    }

    private func pendingCount(_ bus: BusConnection) throws -> UInt32 {
        try bus.call(method("PendingCount"), { _ throws(BusError) in }, read: { m throws(BusError) in try m.readUInt32() })
    }

    /// Wall time of `body` in seconds.
    private func timed<T>(_ body: () throws -> T) rethrows -> (T, Double) {
        let start = Date()
        let value = try body()
        return (value, Date().timeIntervalSince(start))
    }

    private func push(_ id: String, title: String = "t", cancelOn: String = "big") -> String {
        #"{"bk":{"local":{"id":"\#(id)","at":"2026-03-09T06:00:00Z","title":"\#(title)","cancelOn":["\#(cancelOn)"]}}}"#
    }

    func testPushBatchOverEachCap_isRefusedWholeAndQuickly_whileAnotherClientIsServed() throws {
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z")
        defer { h.tearDown() }
        let caller = try BusConnection.open(.address(h.bus.address)), other = try BusConnection.open(.address(h.bus.address))
        let atCap = (0..<10_000).map { push("run_a:\($0)") }
        XCTAssertEqual(try pushBatch(caller, atCap).count, 10_000, "10,000 entries: at the cap, all answered")
        XCTAssertEqual(try pendingCount(caller), 10_000)

        let overCount = (0..<10_001).map { push("run_b:\($0)") }
        let bigTitle = String(repeating: "x", count: 1_000)
        let perEntry = push("run_c:00000", title: bigTitle).utf8.count
        let overBytes = (0..<((8 << 20) / perEntry + 1)).map { push(String(format: "run_c:%05d", $0), title: bigTitle) }
        XCTAssertGreaterThan(overBytes.reduce(0) { $0 + $1.utf8.count }, 8 << 20)
        XCTAssertLessThan(overBytes.count, 10_000)
        for (batch, cap) in [(overCount, "10000 entries"), (overBytes, "8388608 bytes")] {
            let (result, seconds) = timed { () -> Result<[String], BusError> in
                do throws(BusError) { return .success(try pushBatch(caller, batch)) } catch { return .failure(error) }
            }
            guard case .failure(let error) = result else { return XCTFail("over the cap (\(cap)) was accepted") }
            XCTAssertEqual(error.name, "org.schedd.Scheduler1.Error.InvalidArgument", "\(error)")
            XCTAssertTrue(error.detail.contains(cap), error.detail)
            XCTAssertLessThan(seconds, 1.0, "refused over \(cap) in \(seconds) s")  // liveness bound (issue 20)
            let (clock, clockSeconds) = try timed {
                try other.call(method("ClockShow"), { _ throws(BusError) in }, read: { m throws(BusError) in try m.readString() })
            }
            XCTAssertTrue(clock.contains("\"fake\":true"), clock)
            XCTAssertLessThan(clockSeconds, 0.1, "another client's ClockShow after the refusal took \(clockSeconds) s")
            XCTAssertEqual(try pendingCount(caller), 10_000, "nothing of the refused batch was stored")
        }
    }

    func testTrackOverManySchedules_answersACountABoundedListAndMore() throws {
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z")
        defer { h.tearDown() }
        let bus = try BusConnection.open(.address(h.bus.address))
        for page in 0..<3 { _ = try pushBatch(bus, (0..<10_000).map { push("run_\(page):\($0)") }) }
        let answer = try bus.call(method("Track"), timeoutMicroseconds: 300_000_000,
                                  { m throws(BusError) in try m.append("big"); try m.append("") },
                                  read: { m throws(BusError) in (try m.readUInt32(), try m.readStrings(), try m.readBool()) })
        XCTAssertEqual(answer.0, 30_000, "every schedule naming the event was cancelled")
        XCTAssertEqual(answer.1.count, 1_000, "at most ReplyBounds.maxRows ids are listed")
        XCTAssertTrue(answer.2, "more says the list is not all of them")
        XCTAssertEqual(Set(answer.1).count, 1_000)
        XCTAssertEqual(try pendingCount(bus), 0)
        let none = try bus.call(method("Cancel"), { m throws(BusError) in try m.append("run_0:0") },
                                read: { m throws(BusError) in (try m.readUInt32(), try m.readStrings(), try m.readBool()) })
        XCTAssertEqual(none.0, 0)
        XCTAssertEqual(none.1, [])
        XCTAssertFalse(none.2)
    }
}
