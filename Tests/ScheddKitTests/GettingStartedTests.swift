import ScheddClient
import ScheddTestKit
import Testing

@Test func waterReminderFiresOnWeekdaysOnly() async throws {
    // Thu 2026-12-24 08:00 UTC (09:00 in Berlin); the clock moves only when the test says so.
    let testbed = try await Testbed.start(fakeClock: "2026-12-24T08:00:00Z", zone: "Europe/Berlin",
                                          app: "org.example.Reminders")
    defer { testbed.stop() }
    let outcome = try await testbed.push(.local(LocalNotification(
        id: "habit:water", title: "Drink water", trigger: .calendar("Mon..Fri 10:00"))))
    #expect(outcome.map(\.status) == [.scheduled])
    try await testbed.advance("5d")                  // to Tue 09:00: Thu, Fri, (not Sat, Sun), Mon at 10:00
    #expect(try testbed.shown().map(\.id) == ["habit:water", "habit:water", "habit:water"])
}
