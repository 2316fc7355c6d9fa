import Glibc
import SchedCalendar
import XCTest
@testable import Scheduler

/// A fresh temporary directory per test, removed afterwards.
func makeTemporaryDirectory() -> String {
    var template = Array("/tmp/schedd-test-XXXXXX".utf8CString)
    let path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    return path
}

func removeTree(_ path: String) {
    _ = path.withCString { p in system("rm -rf '\(String(cString: p))'") }
}

func sampleSchedule(id: String, next: Int64, cancelOn: [String] = []) -> StoredSchedule {
    StoredSchedule(
        key: 0, app: Engine.defaultApp, id: id, kind: .floatingAt, spec: nil, atInstant: nil, atOffset: nil,
        wall: CivilDateTime(year: 2026, month: 3, day: 8, hour: 19), zone: nil,
        untilInstant: nil, untilWall: nil, untilZone: nil, next: Instant(seconds: next), lastDue: nil,
        title: "Title \(id)", body: "body\u{0}with nul", dataJSON: #"{"k":1}"#, cancelOn: cancelOn,
        graceSeconds: 60, urgency: .critical, icon: "dialog-information", category: "im",
        actions: [NotificationAction(id: "ok", title: "O:K 3:x")], messageId: "m1", fingerprint: "fp-\(id)",
        storedAt: Instant(seconds: 1))
}

final class StoreTests: XCTestCase {
    var directory = ""
    var path: String { directory + "/state/schedd/schedd.db" }

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { removeTree(directory) }

    func testOpen_createsFileWithMode0600_inMissingDirectories_andWALFull() throws {
        let store = try SQLiteScheduleStore(path: path)
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        let mode = try store.db.statement("PRAGMA journal_mode")
        XCTAssertTrue(try mode.step())
        XCTAssertEqual(mode.string(0), "wal")
        mode.reset()
        let sync = try store.db.statement("PRAGMA synchronous")
        XCTAssertTrue(try sync.step())
        XCTAssertEqual(sync.int64(0), 2, "synchronous must be FULL (2)")
        sync.reset()
        let version = try store.db.statement("PRAGMA user_version")
        XCTAssertTrue(try version.step())
        XCTAssertEqual(version.int64(0), StoreSchema.version)
        version.reset()
        store.close()
    }

    func testOpen_garbageFile_isCorruptError_andFileUntouched() throws {
        let garbage = directory + "/garbage.db"
        let content = String(repeating: "not a database at all ", count: 300)
        XCTAssertTrue(FileHandleLite.write(garbage, content))
        XCTAssertThrowsError(try SQLiteScheduleStore(path: garbage)) { error in
            let storeError = error as? StoreError
            XCTAssertEqual(storeError?.kind, .corrupt)
            XCTAssertTrue(storeError?.message.contains(garbage) ?? false, "\(error)")
        }
        XCTAssertEqual(FileHandleLite.read(garbage), content)
    }

    func testOpen_damagedPages_isCorruptError_neverRecreated() throws {
        let store = try SQLiteScheduleStore(path: path)
        try store.transaction { () throws(StoreError) in
            for i in 0..<400 { _ = try store.schedules.insert(sampleSchedule(id: "d\(i)", next: Int64(i))) }
        }
        store.close()  // the last connection checkpoints the WAL into the main file
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        let size = Int(info.st_size)
        XCTAssertGreaterThan(size, 4 * 4096)
        // Overwrite the middle pages (b-tree pages of the schedules table and its indexes) with garbage.
        guard let f = fopen(path, "r+") else { return XCTFail("cannot reopen \(path)") }
        fseek(f, 2 * 4096, SEEK_SET)
        let garbage = [UInt8](repeating: 0xA5, count: size - 3 * 4096)
        _ = garbage.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
        fclose(f)
        XCTAssertThrowsError(try SQLiteScheduleStore(path: path)) { error in
            XCTAssertEqual((error as? StoreError)?.kind, .corrupt, "\(error)")
        }
        XCTAssertEqual(stat(path, &info), 0)
        XCTAssertEqual(Int(info.st_size), size, "the damaged file is left as it was")
    }

    func testOpen_foreignSQLiteDatabase_isRefused() throws {
        let foreign = directory + "/foreign.db"
        try StorePath.createIfMissing(foreign)
        let other = try SQLiteConnection(openingExisting: foreign)
        try other.execute("CREATE TABLE notes(x TEXT); INSERT INTO notes VALUES('keep me')")
        other.close()
        XCTAssertThrowsError(try SQLiteScheduleStore(path: foreign)) { error in
            XCTAssertEqual((error as? StoreError)?.kind, .corrupt)
        }
    }

    func testOpen_newerSchemaVersion_isRefused() throws {
        let store = try SQLiteScheduleStore(path: path)
        try store.db.execute("PRAGMA user_version = \(StoreSchema.version + 1)")
        store.close()
        XCTAssertThrowsError(try SQLiteScheduleStore(path: path)) { error in
            XCTAssertEqual((error as? StoreError)?.kind, .corrupt)
            XCTAssertTrue("\(error)".contains("newer"), "\(error)")
        }
    }

    func testOpen_unreadablePath_isUnavailable() {
        XCTAssertThrowsError(try SQLiteScheduleStore(path: "/proc/definitely/not/here.db")) { error in
            XCTAssertEqual((error as? StoreError)?.kind, .unavailable)
        }
    }

    func testSchedule_roundTripsEveryField_acrossReopen() throws {
        var original = sampleSchedule(id: "run_1:a", next: 1_000, cancelOn: ["logout", "ev\u{1F}2"])
        let store = try SQLiteScheduleStore(path: path)
        original.key = try store.transaction { () throws(StoreError) in try store.schedules.insert(original) }
        store.close()
        let reopened = try SQLiteScheduleStore(path: path)
        XCTAssertEqual(try reopened.schedules.schedule(app: Engine.defaultApp, id: "run_1:a"), original)
        XCTAssertEqual(try reopened.schedules.schedule(key: original.key), original)
        var keys: [Int64] = []
        try reopened.schedules.forEachPendingDeadline { key, _ in keys.append(key) }
        XCTAssertEqual(keys, [original.key])
        XCTAssertEqual(try reopened.schedules.matching(app: Engine.defaultApp, cancelOn: "ev\u{1F}2").map(\.id), ["run_1:a"])
        XCTAssertEqual(try reopened.schedules.matching(app: Engine.defaultApp, cancelOn: "ev"), [])
    }

    func testRunLookup_matchesExactRunOnly() throws {
        let store = try SQLiteScheduleStore(path: path)
        for (i, id) in ["run_4", "run_4:a", "run_4:b:c", "run_44:a", "run_4a", "run_3:z", "run_5"].enumerated() {
            _ = try store.schedules.insert(sampleSchedule(id: id, next: Int64(100 - i)))
        }
        XCTAssertEqual(Set(try store.schedules.matching(app: Engine.defaultApp, run: "run_4").map(\.id)), ["run_4", "run_4:a", "run_4:b:c"])
        XCTAssertEqual(try store.schedules.matching(app: Engine.defaultApp, run: "run_44").map(\.id), ["run_44:a"])
        XCTAssertEqual(try store.schedules.matching(app: Engine.defaultApp, run: "run_4:a"), [])
    }

    func testTransaction_rollsBackEverything_whenBodyThrows() throws {
        let store = try SQLiteScheduleStore(path: path)
        XCTAssertThrowsError(try store.transaction { () throws(StoreError) in
            _ = try store.schedules.insert(sampleSchedule(id: "a", next: 1))
            try store.tombstones.add(app: Engine.defaultApp, .id, "b", at: Instant(seconds: 1))
            throw StoreError(.io, "simulated failure")
        })
        XCTAssertNil(try store.schedules.schedule(app: Engine.defaultApp, id: "a"))
        XCTAssertFalse(try store.tombstones.contains(app: Engine.defaultApp, .id, "b"))
        // Duplicate ids violate the unique index: the nested insert fails and the batch is rolled back.
        XCTAssertThrowsError(try store.transaction { () throws(StoreError) in
            _ = try store.schedules.insert(sampleSchedule(id: "c", next: 1))
            try store.transaction { () throws(StoreError) in _ = try store.schedules.insert(sampleSchedule(id: "c", next: 2)) }
        })
        XCTAssertNil(try store.schedules.schedule(app: Engine.defaultApp, id: "c"))
    }

    func testTombstones_purgeOnlyOlderThanCutoff() throws {
        let store = try SQLiteScheduleStore(path: path)
        try store.tombstones.add(app: Engine.defaultApp, .id, "old", at: Instant(seconds: 100))
        try store.tombstones.add(app: Engine.defaultApp, .run, "new", at: Instant(seconds: 200))
        XCTAssertEqual(try store.tombstones.purge(createdBefore: Instant(seconds: 150)), 1)
        XCTAssertFalse(try store.tombstones.contains(app: Engine.defaultApp, .id, "old"))
        XCTAssertTrue(try store.tombstones.contains(app: Engine.defaultApp, .run, "new"))
        XCTAssertFalse(try store.tombstones.contains(app: Engine.defaultApp, .id, "new"), "kinds are separate")
    }

    func testHistory_newestN_oldestFirst() throws {
        let store = try SQLiteScheduleStore(path: path)
        for i in 0..<5 {
            try store.history.append(HistoryRecord(app: Engine.defaultApp, id: "id\(i)", event: .fired, at: Instant(seconds: Int64(i)),
                                                  due: nil, reason: nil, lateSeconds: 0, title: nil,
                                                  messageId: "m\(i)", dataJSON: #"{"i":\#(i)}"#))
        }
        let records = try store.history.records(app: Engine.defaultApp, limit: 3)
        XCTAssertEqual(records.map(\.id), ["id2", "id3", "id4"])
        XCTAssertEqual(records.last?.messageId, "m4")
        XCTAssertEqual(records.last?.dataJSON, #"{"i":4}"#)
    }

    func testPreparedStatements_areReused_notPreparedPerCall() throws {
        let store = try SQLiteScheduleStore(path: path)
        for i in 0..<3 { _ = try store.schedules.insert(sampleSchedule(id: "w\(i)", next: Int64(i), cancelOn: ["e"])) }
        _ = try store.schedules.schedule(app: Engine.defaultApp, id: "w0")
        let warmed = store.db.cachedStatementCount
        for i in 3..<50 {
            _ = try store.schedules.insert(sampleSchedule(id: "w\(i)", next: Int64(i), cancelOn: ["e"]))
            _ = try store.schedules.schedule(app: Engine.defaultApp, id: "w\(i)")
        }
        XCTAssertEqual(store.db.cachedStatementCount, warmed)
    }

    func testDefaultPath_followsXDGStateHome_elseHome() {
        XCTAssertEqual(StorePath.defaultDatabasePath(xdgStateHome: "/s", home: "/h"), "/s/schedd/schedd.db")
        XCTAssertEqual(StorePath.defaultDatabasePath(xdgStateHome: nil, home: "/h"), "/h/.local/state/schedd/schedd.db")
        XCTAssertEqual(StorePath.defaultDatabasePath(xdgStateHome: "relative", home: "/h"),
                       "/h/.local/state/schedd/schedd.db", "a relative XDG_STATE_HOME is ignored (XDG spec)")
        XCTAssertEqual(StorePath.defaultDatabasePath(xdgStateHome: "", home: "/h"), "/h/.local/state/schedd/schedd.db")
        XCTAssertNil(StorePath.defaultDatabasePath(xdgStateHome: nil, home: nil))
    }

    func testListEncoding_roundTripsArbitraryStrings() {
        let cases: [[String]] = [[], [""], ["a", ""], ["12:x", "3:", ":::"], ["é😀", "\u{0}\n"]]
        for items in cases {
            XCTAssertEqual(StoreCoding.decodeList(StoreCoding.encodeList(items)), items)
        }
        XCTAssertEqual(StoreCoding.decodeList("99:short"), [], "malformed input never traps")
    }
}

/// Minimal file helpers for tests (no Foundation).
enum FileHandleLite {
    static func write(_ path: String, _ text: String) -> Bool {
        guard let f = fopen(path, "w") else { return false }
        defer { fclose(f) }
        return fputs(text, f) >= 0
    }

    static func read(_ path: String) -> String? {
        guard let f = fopen(path, "r") else { return nil }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        while true {
            let c = fgetc(f)
            if c == EOF { break }
            bytes.append(UInt8(c))
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
