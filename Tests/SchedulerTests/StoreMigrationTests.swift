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

    /// Writes a copy of the schema-v1 fixture at `path` (each test migrates a copy of its own); a fixture
    /// that cannot be read fails the calling test.
    static func copyFixture(to path: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let bytes = FileManager.default.contents(atPath: fixture) else {
            return XCTFail("cannot read the v1 fixture \(fixture)", file: file, line: line)
        }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: bytes), file: file, line: line)
    }

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

        let pending = try store.schedules.byNext(app: Engine.defaultApp, limit: nil, offset: 0)
        XCTAssertEqual(Set(pending.map(\.id)),
                       ["run_1:fixed", "run_1:floating", "pinned", "cal-floating", "cal-pinned", "replace-me"])
        let fixed = try XCTUnwrap(pending.first { $0.id == "run_1:fixed" })
        XCTAssertEqual(fixed.dataJSON, #"{"k":[1,2]}"#)
        XCTAssertEqual(fixed.cancelOn, ["checkout"])
        XCTAssertEqual(fixed.urgency, .critical)
        XCTAssertEqual(fixed.messageId, "m-1")
        XCTAssertEqual(try store.schedules.matching(app: Engine.defaultApp, cancelOn: "pause").map(\.id), ["cal-floating"])
        for s in pending {
            XCTAssertEqual(s.fingerprint.utf8.count, 64, "fingerprints become SHA-256 digests: \(s.id)")
            XCTAssertTrue(try store.applied.contains(app: Engine.defaultApp, id: s.id, digest: s.fingerprint), s.id)
        }
        XCTAssertEqual(try store.schedules.schedule(app: Engine.defaultApp, id: "replace-me")?.title, "new")
        XCTAssertEqual(try store.counts.pendingCount(app: Engine.defaultApp), 6, "step 5 counts the migrated rows")

        let history = try store.history.records(app: Engine.defaultApp, limit: 100)
        XCTAssertEqual(history.map(\.id), ["replace-me", "late", "gone", "fires"])
        XCTAssertEqual(history.map(\.event), [.replaced, .missed, .cancelled, .fired])
        XCTAssertEqual(history.last?.dataJSON, #"{"x":1}"#, "history data moves into payloads and reads back")
        XCTAssertEqual(history[1].lateSeconds, 14_400)
        XCTAssertEqual(try scalar(store.db, "SELECT count(*) FROM history WHERE confirmed = 0"), 0)

        XCTAssertTrue(try store.tombstones.contains(app: Engine.defaultApp, .id, "gone"))
        XCTAssertTrue(try store.tombstones.contains(app: Engine.defaultApp, .run, "run_9"))
        XCTAssertEqual(try store.finished.record(app: Engine.defaultApp, id: "fires")?.outcome, .fired)
        XCTAssertEqual(try store.finished.record(app: Engine.defaultApp, id: "late")?.outcome, .missed)
        let finishedDigest = try XCTUnwrap(store.finished.record(app: Engine.defaultApp, id: "fires")?.fingerprint)
        XCTAssertTrue(try store.applied.contains(app: Engine.defaultApp, id: "fires", digest: finishedDigest))
        XCTAssertEqual(try store.meta.value("device_zone"), "Europe/Berlin")
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

    /// Lengths at the padding edges (a tail of 55/56 bytes needs one/two padded blocks; whole blocks are read
    /// in place), through the contiguous (`[UInt8]`, `String`) and the non-contiguous (lazy map) paths.
    /// Expected values from Python's hashlib.
    func testSHA256_blockBoundaries_matchAnIndependentImplementation() {
        let expected: [Int: String] = [
            1: "084fed08b978af4d7d196a7446a86b58009e636b611db16211b65a9aadff29c5",
            55: "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b",
            56: "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27",
            63: "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055",
            64: "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241",
            65: "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e",
            119: "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e",
            120: "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5",
            127: "a8d23e75d936f303d248888d9b165ee543f4cbafcad3c9dd2a79bd84faa11d07",
            128: "d2742f1f4ac6bb7ca2b239ee18402ba8b3f9f8e652d2a72973c2b9ba11c08cf6",
            129: "307f8fc2c1622b92762e818d39a185d4d667ad49a4b07ceae1f4afa008a93ec4",
        ]
        for (n, hex) in expected {
            let bytes = (0..<n).map { UInt8(($0 * 7 + 3) % 256) }
            XCTAssertEqual(SHA256.hex(bytes), hex, "length \(n), array")
            XCTAssertEqual(SHA256.hex((0..<n).lazy.map { UInt8(($0 * 7 + 3) % 256) }), hex, "length \(n), lazy")
            XCTAssertEqual(SHA256.hex(bytes[...]), hex, "length \(n), slice")
        }
    }
}
