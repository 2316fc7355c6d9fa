import ScheddClient
import ScheddTestKit
import Testing
import XCTest

final class DinnerReminderTests: XCTestCase {
    func testDinnerReminder_firesAtSixLocal() async throws {
        let testbed = try await Testbed.start(fakeClock: "2026-12-24T08:00:00Z", zone: "Europe/Berlin")
        defer { testbed.stop() }
        let outcome = try await testbed.push(.local(LocalNotification(
            id: "run_1:dinner", title: "Dinner", trigger: .at("2026-12-24T18:00"), cancelOn: ["checkout"])))
        XCTAssertEqual(outcome.map(\.status), [.scheduled])
        try await testbed.advance("8h")                    // 17:00 in Berlin: not yet
        XCTAssertEqual(try testbed.shown(), [])
        try await testbed.advance("1h")                    // 18:00: shown and recorded
        XCTAssertEqual(try testbed.shown().map(\.id), ["run_1:dinner"])
        let history = try await testbed.history()
        XCTAssertEqual(history.last?.event, "fired")
    }
}

@Test func checkoutCancelsTheReminder() async throws {
    let testbed = try await Testbed.start(fakeClock: "2026-12-24T08:00:00Z")
    defer { testbed.stop() }
    try await testbed.schedule(id: "cart_7:reminder", title: "Still thinking about it?",
                               at: "2026-12-24T20:00:00Z", cancelOn: ["checkout"])
    let cancelled = try await testbed.client.track("checkout")
    #expect(cancelled.ids == ["cart_7:reminder"] && cancelled.count == 1 && !cancelled.more)
    #expect(try await testbed.runUntilIdle() == 0)         // nothing left to fire
    #expect(try testbed.shown().isEmpty)
}
