import SystemZones
import Glibc
import SchedCalendar
import ScheddCrypto
import XCTest
@testable import Scheduler

/// The schema-migration framework, driven from a real schema-v1 database
/// (Tests/Support/fixtures/store-v1.sqlite, written by `make-store-v1.sh` with schedd at schema v1).
final class StoreMigrationTests: XCTestCase {
    var directory = ""
    var path: String { directory + "/schedd.db" }
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Support/fixtures/store-v1.sqlite").standardized.path

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { removeTree(directory) }

    /// Copies the v1 fixture to `path`; the copy is what gets migrated.
    func copyFixture() throws {
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: Self.fixture), "missing \(Self.fixture)")
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: bytes))
        let raw = try SQLiteConnection(openingExisting: path)
        XCTAssertEqual(try StoreSchema.currentVersion(raw), 1, "the fixture must be a schema-v1 database")
        raw.close()
    }

    func scalar(_ db: SQLiteConnection, _ sql: String) throws -> Int64 {
        let st = try db.statement(sql)
        defer { st.reset() }
        XCTAssertTrue(try st.step(), sql)
        return st.int64(0)
    }

    func testStepsAreNumberedOneByOne() {
        for (index, step) in StoreSchema.steps.enumerated() { XCTAssertEqual(step.version, Int64(index + 1)) }
        XCTAssertEqual(StoreSchema.version, Int64(StoreSchema.steps.count))
    }

    func testV1Fixture_migratesToCurrent_keepingEveryRow() throws {
        try copyFixture()
        let store = try SQLiteScheduleStore(path: path)
        defer { store.close() }
        XCTAssertEqual(try StoreSchema.currentVersion(store.db), StoreSchema.version)
        XCTAssertEqual(try scalar(store.db, "PRAGMA auto_vacuum"), 2, "v1 files are converted to incremental auto-vacuum")
        let check = try store.db.statement("PRAGMA integrity_check")
        XCTAssertTrue(try check.step())
        XCTAssertEqual(check.string(0), "ok")
        check.reset()

        let pending = try store.schedulesByNext(app: Engine.defaultApp, limit: nil, offset: 0)
        XCTAssertEqual(Set(pending.map(\.id)),
                       ["run_1:fixed", "run_1:floating", "pinned", "cal-floating", "cal-pinned", "replace-me"])
        let fixed = try XCTUnwrap(pending.first { $0.id == "run_1:fixed" })
        XCTAssertEqual(fixed.dataJSON, #"{"k":[1,2]}"#)
        XCTAssertEqual(fixed.cancelOn, ["checkout"])
        XCTAssertEqual(fixed.urgency, .critical)
        XCTAssertEqual(fixed.messageId, "m-1")
        XCTAssertEqual(try store.schedules(app: Engine.defaultApp, cancelOn: "pause").map(\.id), ["cal-floating"])
        for s in pending {
            XCTAssertEqual(s.fingerprint.utf8.count, 64, "fingerprints become SHA-256 digests: \(s.id)")
            XCTAssertTrue(try store.isApplied(app: Engine.defaultApp, id: s.id, digest: s.fingerprint), s.id)
        }
        XCTAssertEqual(try store.schedule(app: Engine.defaultApp, id: "replace-me")?.title, "new")
        XCTAssertEqual(try store.pendingCount(app: Engine.defaultApp), 6, "step 5 counts the migrated rows")

        let history = try store.history(app: Engine.defaultApp, limit: 100)
        XCTAssertEqual(history.map(\.id), ["replace-me", "late", "gone", "fires"])
        XCTAssertEqual(history.map(\.event), [.replaced, .missed, .cancelled, .fired])
        XCTAssertEqual(history.last?.dataJSON, #"{"x":1}"#, "history data moves into payloads and reads back")
        XCTAssertEqual(history[1].lateSeconds, 14_400)
        XCTAssertEqual(try scalar(store.db, "SELECT count(*) FROM history WHERE confirmed = 0"), 0)

        XCTAssertTrue(try store.hasTombstone(app: Engine.defaultApp, .id, "gone"))
        XCTAssertTrue(try store.hasTombstone(app: Engine.defaultApp, .run, "run_9"))
        XCTAssertEqual(try store.finished(app: Engine.defaultApp, id: "fires")?.outcome, .fired)
        XCTAssertEqual(try store.finished(app: Engine.defaultApp, id: "late")?.outcome, .missed)
        let finishedDigest = try XCTUnwrap(store.finished(app: Engine.defaultApp, id: "fires")?.fingerprint)
        XCTAssertTrue(try store.isApplied(app: Engine.defaultApp, id: "fires", digest: finishedDigest))
        XCTAssertEqual(try store.metadata("device_zone"), "Europe/Berlin")
    }

    /// After the migration the engine restores the same schedules, and the very pushes that wrote the
    /// fixture are recognised as applied (their digests were computed from the v1 fingerprints).
    func testV1Fixture_engineRestores_andFixturePushesAreDuplicates() throws {
        try copyFixture()
        let berlin = try loadZone("Europe/Berlin")
        let now = utc(2026, 3, 1, 13, 0)
        let engine = try Engine(databasePath: path, notifier: ScriptedNotifier(), deviceZone: berlin, zones: ZoneDatabase.shared, now: now)
        defer { engine.close() }
        XCTAssertEqual(engine.pendingCount, 6)
        XCTAssertEqual(try engine.list(limit: nil).first?.id, "cal-pinned")
        let again = #"{"bk":{"local":{"id":"fires","at":"2026-03-01T12:30:00Z","title":"Fires","data":{"x":1}}}}"#
        XCTAssertEqual(try engine.push(PushDecoder.decode(Array(again.utf8), zones: ZoneDatabase.shared), now: now).map(\.status), [.duplicate])
        let pendingAgain = #"{"bk":{"local":{"id":"run_1:floating","at":"2026-03-03T19:00","title":"Floating"}}}"#
        XCTAssertEqual(try engine.push(PushDecoder.decode(Array(pendingAgain.utf8), zones: ZoneDatabase.shared), now: now).map(\.status),
                       [.duplicate])
        let older = #"{"bk":{"local":{"id":"replace-me","at":"2026-03-05T10:00:00Z","title":"old"}}}"#
        let outcome = try engine.push(PushDecoder.decode(Array(older.utf8), zones: ZoneDatabase.shared), now: now)
        XCTAssertEqual(outcome.map(\.status), [.replaced],
                       "v1 kept no digest of replaced versions: an older version of a replaced push is new to v2")
    }

    /// A failing step rolls back whole: the database stays at the last version that committed.
    func testFailingStep_rollsBack_toThePreviousVersion() throws {
        try StorePath.createIfMissing(path)
        let db = try SQLiteConnection(openingExisting: path)
        defer { db.close() }
        let broken = StoreMigration(version: 3, summary: "broken on purpose") { (db) throws(SQLiteError) in
            try db.execute("CREATE TABLE half_done(x INTEGER); INSERT INTO half_done VALUES(1)")
            try db.execute("INSERT INTO no_such_table VALUES(1)")
        }
        XCTAssertThrowsError(try StoreSchema.migrate(db, steps: [.v1, .v2, broken])) { error in
            XCTAssertTrue("\(error)".contains("schema version 3 (broken on purpose)"), "\(error)")
        }
        XCTAssertEqual(try StoreSchema.currentVersion(db), 2)
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM sqlite_master WHERE name = 'half_done'"), 0)
        XCTAssertFalse(db.inTransaction)
    }

    /// A step past this build's version (what a newer schedd would add) runs on top of the current schema.
    func testNextStep_runsOnTopOfTheCurrentSchema() throws {
        try copyFixture()
        let db = try SQLiteConnection(openingExisting: path)
        defer { db.close() }
        let next = StoreMigration(version: StoreSchema.version + 1, summary: "example") { (db) throws(SQLiteError) in
            try db.execute("ALTER TABLE history ADD COLUMN example TEXT NOT NULL DEFAULT 'x'")
        }
        try StoreSchema.migrate(db, steps: StoreSchema.steps + [next])
        XCTAssertEqual(try StoreSchema.currentVersion(db), StoreSchema.version + 1)
        XCTAssertEqual(try scalar(db, "SELECT count(*) FROM history WHERE example = 'x'"), 4)
    }

    func testNewDatabase_usesIncrementalAutoVacuum_fromTheStart() throws {
        let store = try SQLiteScheduleStore(path: path)
        defer { store.close() }
        XCTAssertEqual(try scalar(store.db, "PRAGMA auto_vacuum"), 2)
    }

    func testSHA256_knownVectors() {
        XCTAssertEqual(SHA256.hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(SHA256.hex(String(repeating: "a", count: 1_000_000)),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
