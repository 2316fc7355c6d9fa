import Foundation
import SchedCalendar
import SystemZones
import XCTest

/// Zone lookup by name, the parse-once cache, and device-zone discovery (TZ, /etc/localtime).
final class ZoneDatabaseTests: XCTestCase {
    let system = ZoneDatabase(directory: "/usr/share/zoneinfo")
    var temp: URL!

    override func setUpWithError() throws {
        temp = FileManager.default.temporaryDirectory.appendingPathComponent("schedd-zones-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: temp.appendingPathComponent("zoneinfo/Test"),
                                                withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: temp.appendingPathComponent("etc"), withIntermediateDirectories: true)
        // A real zone file under another name (the system's America/New_York).
        try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/America/New_York",
                                         toPath: temp.appendingPathComponent("zoneinfo/Test/Zone").path)
        try Data("not a zone file at all, long enough for a header........".utf8)
            .write(to: temp.appendingPathComponent("zoneinfo/Test/Corrupt"))
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: temp) }

    /// The message of the `ZoneError` `body` throws; nil when it succeeds.
    func error(_ body: () throws -> TimeZoneRules) -> String? {
        do { _ = try body(); return nil } catch let e as ZoneError { return e.message } catch { return "\(error)" }
    }

    func testZoneNamed_isParsedOnce_andShared() throws {
        let a = try system.zone(named: "Europe/Berlin")
        let b = try system.zone(named: "Europe/Berlin")
        XCTAssertTrue(a === b)
        XCTAssertEqual(a.name, "Europe/Berlin")
        var loaded = [ObjectIdentifier](repeating: ObjectIdentifier(a), count: 64)
        let db = ZoneDatabase(directory: "/usr/share/zoneinfo")
        loaded.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let out = buffer
            DispatchQueue.concurrentPerform(iterations: 64) { i in
                out[i] = ObjectIdentifier(try! db.zone(named: "Australia/Lord_Howe"))
            }
        }
        XCTAssertEqual(Set(loaded).count, 1, "concurrent first loads must share one parsed zone")
    }

    func testUnknownAndInvalidNames_areErrors_neverUTC() {
        XCTAssertEqual(error { try system.zone(named: "Mars/Olympus") },
                       "unknown time zone 'Mars/Olympus': no file /usr/share/zoneinfo/Mars/Olympus")
        for (name, problem) in [("../etc/passwd", "'..' path component"), ("/etc/localtime", "absolute path"),
                                ("America//New_York", "empty path component"), ("", "empty"),
                                ("America/./New_York", "'.' path component"), ("America/", "empty path component")] {
            XCTAssertEqual(error { try system.zone(named: name) }, "invalid time zone name '\(name)': \(problem)")
        }
        XCTAssertEqual(error { try system.zone(named: "America") },
                       "time zone 'America': cannot read /usr/share/zoneinfo/America: not a regular file")
        XCTAssertFalse(system.isKnownZone("Mars/Olympus"))
        XCTAssertTrue(system.isKnownZone("Asia/Kolkata"))
    }

    func testCustomDirectory_andCorruptFile() throws {
        let db = ZoneDatabase(directory: temp.appendingPathComponent("zoneinfo").path + "/")
        XCTAssertEqual(db.directory, temp.appendingPathComponent("zoneinfo").path)
        XCTAssertEqual(try db.zone(named: "Test/Zone").offset(at: Instant(seconds: 1_782_864_000)).abbreviation, "EDT")
        // No UTC file in this database: UTC is still known (and built in), other names are not.
        XCTAssertTrue(try db.zone(named: "UTC") === TimeZoneRules.utc)
        XCTAssertEqual(try db.zone(named: "Etc/UTC").offset(at: Instant(seconds: 0)).utcOffsetSeconds, 0)
        XCTAssertFalse(db.isKnownZone("Etc/GMT"))
        let message = error { try db.zone(named: "Test/Corrupt") } ?? ""
        XCTAssertTrue(message.hasPrefix("time zone 'Test/Corrupt': \(db.directory)/Test/Corrupt: invalid TZif header: bad magic"),
                      message)
    }

    func testTZDIR_isHonouredByDefault() throws {
        setenv("TZDIR", temp.appendingPathComponent("zoneinfo").path, 1)
        defer { unsetenv("TZDIR") }
        XCTAssertEqual(ZoneDatabase().directory, temp.appendingPathComponent("zoneinfo").path)
        XCTAssertTrue(ZoneDatabase().isKnownZone("Test/Zone"))
        unsetenv("TZDIR")
        XCTAssertEqual(ZoneDatabase().directory, "/usr/share/zoneinfo")
    }

    func testDeviceZone_fromTZ_allForms() throws {
        XCTAssertTrue(try system.deviceZone(tz: "America/New_York") === system.zone(named: "America/New_York"))
        XCTAssertTrue(try system.deviceZone(tz: ":America/New_York") === system.zone(named: "America/New_York"))
        let byPath = try system.deviceZone(tz: ":/usr/share/zoneinfo/Asia/Kolkata")
        XCTAssertEqual(byPath.name, "/usr/share/zoneinfo/Asia/Kolkata")
        XCTAssertEqual(byPath.offset(at: Instant(seconds: 0)).utcOffsetSeconds, 19800)
        XCTAssertTrue(byPath === (try system.deviceZone(tz: "/usr/share/zoneinfo/Asia/Kolkata")), "parsed once")
        let posix = try system.deviceZone(tz: "EST5EDT,M3.2.0,M11.1.0")
        XCTAssertEqual(posix.name, "EST5EDT,M3.2.0,M11.1.0")
        XCTAssertTrue(posix === (try system.deviceZone(tz: "EST5EDT,M3.2.0,M11.1.0")), "parsed once")
        // The device zone's cache keys start with NUL: a push naming one is still refused, not served from the cache.
        XCTAssertEqual(error { try system.zone(named: "\u{0}posix EST5EDT,M3.2.0,M11.1.0") },
                       "invalid time zone name '\u{0}posix EST5EDT,M3.2.0,M11.1.0': contains NUL")
        XCTAssertEqual(error { try system.zone(named: "\u{0}file /usr/share/zoneinfo/Asia/Kolkata") },
                       "invalid time zone name '\u{0}file /usr/share/zoneinfo/Asia/Kolkata': contains NUL")
        XCTAssertEqual(posix.offset(at: Instant(seconds: 1_772_953_200)).abbreviation, "EDT")  // 2026-03-08T07:00Z
        XCTAssertEqual(try system.deviceZone(tz: "<+0530>-5:30").offset(at: Instant(seconds: 0)).utcOffsetSeconds, 19800)
        // A name that is also a POSIX string: the file wins, as in glibc (it has the 1918 rules).
        let est5edt = try system.deviceZone(tz: "EST5EDT")
        XCTAssertTrue(est5edt === (try system.zone(named: "EST5EDT")))
        XCTAssertEqual(error { try system.deviceZone(tz: "Mars/Olympus") },
                       "unknown time zone 'Mars/Olympus': no file /usr/share/zoneinfo/Mars/Olympus")
        XCTAssertEqual(error { try system.deviceZone(tz: "NoSuchZone") },
                       "unknown time zone 'NoSuchZone': no file /usr/share/zoneinfo/NoSuchZone")
        XCTAssertTrue(error { try system.deviceZone(tz: "EST5EDT,M13.1.0,M11.1.0") }?
            .hasPrefix("invalid POSIX TZ string 'EST5EDT,M13.1.0,M11.1.0': expected a month 1-12") ?? false)
    }

    func testDeviceZone_fromLocaltimeSymlink_regularFile_orMissing() throws {
        let localtime = temp.appendingPathComponent("etc/localtime").path
        let db = ZoneDatabase(directory: temp.appendingPathComponent("zoneinfo").path)
        // Relative symlink into the database: named after the target, shared with zone(named:).
        try FileManager.default.createSymbolicLink(atPath: localtime, withDestinationPath: "../zoneinfo/Test/Zone")
        let linked = try db.deviceZone(tz: nil, localtimePath: localtime)
        XCTAssertEqual(linked.name, "Test/Zone")
        XCTAssertTrue(linked === (try db.zone(named: "Test/Zone")))
        XCTAssertEqual(try db.deviceZone(tz: "", localtimePath: localtime).name, "Test/Zone")
        // TZ wins over /etc/localtime.
        XCTAssertEqual(try db.deviceZone(tz: "UTC0", localtimePath: localtime).name, "UTC0")
        // Absolute symlink into the system database, through posix/.
        try FileManager.default.removeItem(atPath: localtime)
        try FileManager.default.createSymbolicLink(atPath: localtime, withDestinationPath: "/usr/share/zoneinfo/posix/Europe/Berlin")
        XCTAssertEqual(try system.deviceZone(tz: nil, localtimePath: localtime).name, "Europe/Berlin")
        // Dangling symlink: an error naming the zone, never UTC.
        try FileManager.default.removeItem(atPath: localtime)
        try FileManager.default.createSymbolicLink(atPath: localtime, withDestinationPath: "/usr/share/zoneinfo/Mars/Olympus")
        XCTAssertEqual(error { try system.deviceZone(tz: nil, localtimePath: localtime) },
                       "unknown time zone 'Mars/Olympus': no file /usr/share/zoneinfo/Mars/Olympus")
        // A copied file: named "localtime", read afresh.
        try FileManager.default.removeItem(atPath: localtime)
        try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/Asia/Kolkata", toPath: localtime)
        let copied = try system.deviceZone(tz: nil, localtimePath: localtime)
        XCTAssertEqual(copied.name, "localtime")
        XCTAssertEqual(copied.offset(at: Instant(seconds: 0)).utcOffsetSeconds, 19800)
        // Missing: UTC, as glibc and systemd assume.
        try FileManager.default.removeItem(atPath: localtime)
        XCTAssertTrue(try system.deviceZone(tz: nil, localtimePath: localtime) === TimeZoneRules.utc)
    }

    func testDeviceZoneFilePaths_followTZ_asDeviceZoneReadsIt() {
        let db = ZoneDatabase(directory: "/z")
        XCTAssertEqual(db.deviceZoneFilePaths(tz: nil), ["/etc/localtime"])
        XCTAssertEqual(db.deviceZoneFilePaths(tz: "", localtimePath: "/x/localtime"), ["/x/localtime"])
        XCTAssertEqual(db.deviceZoneFilePaths(tz: ":Europe/Berlin"), ["/z/Europe/Berlin"])
        XCTAssertEqual(db.deviceZoneFilePaths(tz: "Europe/Berlin"), ["/z/Europe/Berlin"])
        XCTAssertEqual(db.deviceZoneFilePaths(tz: ":/etc/tz/Mine"), ["/etc/tz/Mine"])
        XCTAssertEqual(db.deviceZoneFilePaths(tz: "EST5EDT,M3.2.0,M11.1.0"), [])
    }
}
