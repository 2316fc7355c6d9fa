import Glibc
import SchedCalendar
import XCTest
@testable import Scheduler

/// Schema v3's `push_registrations` through the real SQLite store: the v1 fixture migrates to it,
/// rows survive reopening, tokens are unique, rejections are counted on their row.
final class PushRegistrationStoreTests: XCTestCase {
    var directory = ""
    var path: String { directory + "/schedd.db" }

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { removeTree(directory) }

    func record(_ app: String, token: String, at micros: Int64 = 1_000) -> PushRegistrationRecord {
        PushRegistrationRecord(app: app, token: token, description: "reminders", distributor: nil, endpoint: nil,
                               privateKey: "priv-\(app)", publicKey: "pub-\(app)", authSecret: "auth-\(app)",
                               created: Instant(microseconds: micros), updated: Instant(microseconds: micros))
    }

    func testV1Fixture_migratesToV3_withNoRegistrations() throws {
        StoreMigrationTests.copyFixture(to: path)
        let store = try SQLiteScheduleStore(path: path)
        defer { store.close() }
        XCTAssertGreaterThanOrEqual(try StoreSchema.currentVersion(store.db), 3)
        XCTAssertEqual(try store.registrations.all(), [])
    }

    func testSaveReadUpdateDelete_surviveReopening() throws {
        do {
            let store = try SQLiteScheduleStore(path: path)
            defer { store.close() }
            try store.registrations.save(record("org.example.B", token: "tb"))
            try store.registrations.save(record("org.example.A", token: "ta"))
            var updated = record("org.example.B", token: "tb", at: 2_000)
            updated.distributor = "org.unifiedpush.Distributor.test"
            updated.endpoint = "https://push.example/abc"
            try store.registrations.save(updated)
        }
        let store = try SQLiteScheduleStore(path: path)
        defer { store.close() }
        XCTAssertEqual(try store.registrations.all().map(\.app), ["org.example.A", "org.example.B"])
        let b = try XCTUnwrap(store.registrations.record(token: "tb"))
        XCTAssertEqual(b.endpoint, "https://push.example/abc")
        XCTAssertEqual(b.distributor, "org.unifiedpush.Distributor.test")
        XCTAssertEqual(b.updated, Instant(microseconds: 2_000))
        XCTAssertEqual(try store.registrations.record(app: "org.example.A")?.token, "ta")
        XCTAssertNil(try store.registrations.record(token: "nope"))
        XCTAssertTrue(try store.registrations.delete(app: "org.example.A"))
        XCTAssertFalse(try store.registrations.delete(app: "org.example.A"))
        XCTAssertEqual(try store.registrations.all().map(\.app), ["org.example.B"])
    }

    func testTokens_areUniqueAcrossApps() throws {
        let store = try SQLiteScheduleStore(path: path)
        defer { store.close() }
        try store.registrations.save(record("org.example.A", token: "same"))
        XCTAssertThrowsError(try store.registrations.save(record("org.example.B", token: "same")))
        XCTAssertEqual(try store.registrations.all().map(\.app), ["org.example.A"])
    }

    func testRejections_areCounted_andTheLatestKept() throws {
        let store = try SQLiteScheduleStore(path: path)
        defer { store.close() }
        try store.registrations.save(record("org.example.A", token: "ta"))
        try store.registrations.recordRejection(app: "org.example.A", PushRejection(at: Instant(microseconds: 5), messageID: "m1",
                                                                          reason: "first"))
        try store.registrations.recordRejection(app: "org.example.A", PushRejection(at: Instant(microseconds: 6), messageID: "m2",
                                                                          reason: "second"))
        let a = try XCTUnwrap(store.registrations.record(app: "org.example.A"))
        XCTAssertEqual(a.rejected, 2)
        XCTAssertEqual(a.lastRejection, PushRejection(at: Instant(microseconds: 6), messageID: "m2", reason: "second"))
    }
}
