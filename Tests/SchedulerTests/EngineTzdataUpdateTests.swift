import SystemZones
import Glibc
import SchedCalendar
import XCTest
@testable import Scheduler

/// CONTRACT §2 tzdata updates: a zone's file replaced (by rename, as dpkg does) with other rules — while
/// the engine runs and while it is down — re-resolves every pending schedule of that zone from its wall time.
/// The zone database is a TZDIR of the test's own whose `Europe/Berlin` is a real TZif file with +01
/// (`Etc/GMT-1`), replaced by one with +02 (`Etc/GMT-2`) or back.
final class EngineTzdataUpdateTests: XCTestCase {
    var tzdir = ""
    let start = utc(2026, 3, 10, 5)  // 06:00 at +01

    override func setUp() {
        tzdir = makeTemporaryDirectory()
        mkdir(tzdir + "/Europe", 0o755)
        install("Etc/GMT-1", as: "Europe/Berlin")
        install("Etc/GMT", as: "UTC")
    }
    override func tearDown() { removeTree(tzdir) }

    /// Copies the system zone file `source` to `name` in the test's TZDIR by write-then-rename.
    func install(_ source: String, as name: String) {
        let bytes = FileManager.default.contents(atPath: "/usr/share/zoneinfo/" + source)
        XCTAssertNotNil(bytes, "no system zone \(source)")
        let path = tzdir + "/" + name
        XCTAssertTrue(FileManager.default.createFile(atPath: path + ".new", contents: bytes))
        XCTAssertEqual(rename(path + ".new", path), 0)
    }

    func testRulesReplacedWhileRunning_reResolveFloatingAndPinned_fromTheirWallTimes() throws {
        let db = ZoneDatabase(directory: tzdir)
        let berlin = try db.zone(named: "Europe/Berlin")
        let h = try EngineHarness(zone: berlin, zones: db, now: start)
        XCTAssertEqual(try h.push(makeLocal("floating", atWall(wall(2026, 3, 10, 19))), now: start).next,
                       utc(2026, 3, 10, 18))
        XCTAssertEqual(try h.push(makeLocal("pinned", .calendar("*-*-* 08:00 Europe/Berlin")), now: start).next,
                       utc(2026, 3, 10, 7))
        try h.push(makeLocal("fixed", atFixed(utc(2026, 3, 10, 12))), now: start)
        install("Etc/GMT-2", as: "Europe/Berlin")
        let changes = try h.e.zoneFilesChanged(now: start.adding(seconds: 60))
        XCTAssertEqual(changes.map(\.zone), ["Europe/Berlin"])
        XCTAssertEqual(Set(changes.flatMap(\.moved).map(\.id)), ["floating", "pinned"])
        XCTAssertEqual(try db.zone(named: "Europe/Berlin").offset(at: start).utcOffsetSeconds, 7200,
                       "the resolver's cache was flushed")
        let next = Dictionary(uniqueKeysWithValues: try h.e.list(limit: nil).map { ($0.id, $0.next) })
        XCTAssertEqual(next["floating"], utc(2026, 3, 10, 17), "19:00 at +02")
        XCTAssertEqual(next["pinned"], utc(2026, 3, 10, 6), "08:00 at +02")
        XCTAssertEqual(next["fixed"], utc(2026, 3, 10, 12), "a fixed instant does not move")
        try h.e.advance(to: utc(2026, 3, 10, 20), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.due), [utc(2026, 3, 10, 6), utc(2026, 3, 10, 12), utc(2026, 3, 10, 17)])
        XCTAssertEqual(try h.e.zoneFilesChanged(now: utc(2026, 3, 10, 20)), [], "nothing changed since")
    }

    /// A push decoded before the zone files changed and applied after: the decoder's parse of its calendar
    /// (which the engine reuses instead of parsing again) holds the old rules, so it is not reused — the
    /// schedule is resolved with the new ones.
    func testCalendarDecodedBeforeARulesChange_isResolvedWithTheNewRules() throws {
        let db = ZoneDatabase(directory: tzdir)
        let h = try EngineHarness(zone: try db.zone(named: "UTC"), zones: db, now: start)
        let text = #"{"bk":{"local":{"id":"pinned","calendar":"*-*-* 08:00 Europe/Berlin","title":"T"}}}"#
        let early = try PushDecoder.decode(Array(text.utf8), zones: db)
        XCTAssertNotNil(early.local?.parsedCalendar.spec, "the decoder hands its parse over")
        install("Etc/GMT-2", as: "Europe/Berlin")
        XCTAssertEqual(try h.e.zoneFilesChanged(now: start), [], "no pending schedule in that zone yet")
        XCTAssertEqual(try h.e.push(early, now: start).last?.next, utc(2026, 3, 10, 6), "08:00 at +02, not +01")
        // Decoded and applied under the same rules: the parse is reused, with the same answer as a fresh one.
        let late = try PushDecoder.decode(Array(text.replacingOccurrences(of: "pinned", with: "again").utf8), zones: db)
        XCTAssertEqual(try h.e.push(late, now: start).last?.next, utc(2026, 3, 10, 6))
    }

    func testRulesReplacedWhileDown_areAppliedAtStart() throws {
        let db = ZoneDatabase(directory: tzdir)
        let h = try EngineHarness(zone: try db.zone(named: "Europe/Berlin"), zones: db, now: start)
        try h.push(makeLocal("floating", atWall(wall(2026, 3, 10, 19))), now: start)
        h.engine?.close()
        h.engine = nil
        install("Etc/GMT-2", as: "Europe/Berlin")
        let fresh = ZoneDatabase(directory: tzdir)  // a new process: nothing cached
        h.engine = try Engine(databasePath: h.path, notifier: h.notifier, deviceZone: try fresh.zone(named: "Europe/Berlin"),
                              zones: fresh, now: start.adding(seconds: 3600))
        XCTAssertEqual(h.e.nextDue, utc(2026, 3, 10, 17))
    }

    /// An offset moving back must not bring back an occurrence that already fired today.
    func testCalendarThatFiredToday_doesNotFireAgain_whenTheOffsetMovesBack() throws {
        install("Etc/GMT-2", as: "Europe/Berlin")
        let db = ZoneDatabase(directory: tzdir)
        let h = try EngineHarness(zone: try db.zone(named: "Europe/Berlin"), zones: db, now: start)
        try h.push(makeLocal("daily", .calendar("*-*-* 19:00")), now: start)
        try h.e.advance(to: utc(2026, 3, 10, 17, 30), mode: .timePassing)  // fired at 17:00Z (19:00 +02)
        XCTAssertEqual(h.notifier.shown.count, 1)
        install("Etc/GMT-1", as: "Europe/Berlin")
        try h.e.zoneFilesChanged(now: utc(2026, 3, 10, 17, 30))
        XCTAssertEqual(h.e.nextDue, utc(2026, 3, 11, 18), "tomorrow 19:00 at +01, not today 18:00Z")
        try h.e.advance(to: utc(2026, 3, 11, 19), mode: .timePassing)
        XCTAssertEqual(h.notifier.shown.map(\.due), [utc(2026, 3, 10, 17), utc(2026, 3, 11, 18)])
    }

    func testDigestsAndTzdataVersion_areRecorded() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: tzdir + "/tzdata.zi",
                                                     contents: Data("# version 2099z\n".utf8)))
        let db = ZoneDatabase(directory: tzdir)
        XCTAssertEqual(db.tzdataVersion, "2099z")
        let h = try EngineHarness(zone: try db.zone(named: "Europe/Berlin"), zones: db, now: start)
        try h.push(makeLocal("tokyo-less", atWall(wall(2026, 3, 10, 9), zone: "UTC")), now: start)
        try h.e.zoneFilesChanged(now: start)
        let store = try SQLiteScheduleStore(path: h.path)
        defer { store.close() }
        XCTAssertEqual(try store.meta.value("tzdata_version"), "2099z")
        let hashes = try store.meta.zoneHashes()
        XCTAssertEqual(Set(hashes.keys), ["Europe/Berlin", "UTC"])
        XCTAssertEqual(hashes["Europe/Berlin"], try db.zone(named: "Europe/Berlin").contentDigest)
        XCTAssertNotEqual(hashes["Europe/Berlin"], hashes["UTC"])
    }
}
