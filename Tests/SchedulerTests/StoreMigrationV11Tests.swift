import SchedCalendar
import ScheddCrypto
import XCTest
@testable import Scheduler

/// Schema step 11 (the UnifiedPush replay window) on the real schema-v1 fixture, and the window itself
/// on the real SQLite store: bounded per app, its rows counted in the app's byte quota by the triggers
/// (equal to `StoreKeptBytes.replay` per row), gone with the registration.
final class StoreMigrationV11Tests: XCTestCase {
    var directory = ""
    var path: String { directory + "/schedd.db" }
    let app = "org.example.Replayed"

    override func setUp() {
        directory = makeTemporaryDirectory()
        StoreMigrationTests.copyFixture(to: path)
    }
    override func tearDown() { removeTree(directory) }

    func registration(_ app: String, token: String) -> PushRegistrationRecord {
        PushRegistrationRecord(app: app, token: token, description: "", distributor: nil, endpoint: nil,
                               privateKey: "k", publicKey: "p", authSecret: "a",
                               created: Instant(microseconds: 1), updated: Instant(microseconds: 1))
    }

    func digest(_ n: Int) -> [UInt8] { SHA256.digest(Array("message \(n)".utf8)) }

    func testV1Fixture_throughStep11_keepsItsRegistration_andStartsWithAnEmptyWindow() throws {
        let raw = try SQLiteConnection(openingExisting: path)
        try StoreSchema.migrate(raw, steps: Array(StoreSchema.steps.prefix(10)))
        XCTAssertEqual(try StoreSchema.currentVersion(raw), 10)
        try raw.execute("""
            INSERT INTO push_registrations(app, token, private_key, public_key, auth_secret, created, updated)
            VALUES('\(app)', 't1', 'k', 'p', 'a', 1, 1)
            """)
        raw.close()

        let store = try SQLiteScheduleStore(path: path)
        defer { store.close() }
        XCTAssertEqual(try StoreSchema.currentVersion(store.db), StoreSchema.version)
        XCTAssertGreaterThanOrEqual(StoreSchema.version, 11, "step 11 is one of this build's steps (schema 12 followed it)")
        XCTAssertEqual(try store.registrations.record(app: app)?.token, "t1", "the registration survived the step")
        XCTAssertEqual(try store.pushReplays.count(app: app), 0)
        XCTAssertFalse(try store.pushReplays.contains(app: app, digest: digest(1)))
        try store.transaction { () throws(StoreError) in try store.pushReplays.record(app: app, digest: digest(1), at: Instant(seconds: 5)) }
        XCTAssertTrue(try store.pushReplays.contains(app: app, digest: digest(1)))
        XCTAssertFalse(try store.pushReplays.contains(app: "org.example.Other", digest: digest(1)), "per app")
        let plan = try queryPlan(store.db, "SELECT 1 FROM push_replays WHERE app = 1 AND digest = x'00'")
        XCTAssertFalse(plan.contains("SCAN"), plan)
    }

    func testWindow_keepsTheNewestThousand_countsInTheQuota_andGoesWithTheRegistration() throws {
        let store = try SQLiteScheduleStore(path: path)
        defer { store.close() }
        try store.registrations.save(registration(app, token: "t1"))
        let size = PushReplayTable.windowSize
        XCTAssertEqual(size, 1_000)
        for n in 0..<(size + 5) {
            try store.transaction { () throws(StoreError) in
                try store.pushReplays.record(app: app, digest: digest(n), at: Instant(seconds: Int64(n)))
            }
        }
        try store.transaction { () throws(StoreError) in try store.pushReplays.record(app: app, digest: digest(size + 4), at: Instant(seconds: 9_999)) }  // again: nothing
        XCTAssertEqual(try store.pushReplays.count(app: app), size)
        for n in 0..<5 { XCTAssertFalse(try store.pushReplays.contains(app: app, digest: digest(n)), "the oldest \(n) left the window") }
        XCTAssertTrue(try store.pushReplays.contains(app: app, digest: digest(5)))
        XCTAssertTrue(try store.pushReplays.contains(app: app, digest: digest(size + 4)))

        // Counted in the app's kept bytes, as the formula says, by the triggers.
        XCTAssertEqual(StoreKeptBytes.replay(digestBytes: 32), 128)
        XCTAssertEqual(try store.counts.storedTotals(app: app).keptBytes, size * StoreKeptBytes.replay(digestBytes: 32))
        let st = try store.db.statement("SELECT coalesce(sum(\(StoreKeptBytes.replaySQL(""))), 0) FROM push_replays")
        XCTAssertTrue(try st.step())
        XCTAssertEqual(Int(st.int64(0)), try store.counts.storedTotals(app: app).keptBytes)
        st.reset()

        XCTAssertTrue(try store.registrations.delete(app: app))
        XCTAssertEqual(try store.pushReplays.count(app: app), 0, "no key left to decrypt them: the window goes")
        XCTAssertEqual(try store.counts.storedTotals(app: app).keptBytes, 0)
    }

    func testWindowRecord_isUndoneWithTheTransactionItRanIn() throws {
        let store = try SQLiteScheduleStore(path: path)
        defer { store.close() }
        XCTAssertThrowsError(try store.transaction { () throws(StoreError) in
            try store.pushReplays.record(app: app, digest: digest(1), at: Instant(seconds: 1))
            throw StoreError(.io, "the push failed")
        })
        XCTAssertFalse(try store.pushReplays.contains(app: app, digest: digest(1)), "nothing recorded for a push that did not apply")
        XCTAssertEqual(try store.counts.storedTotals(app: app).keptBytes, 0)
    }
}
