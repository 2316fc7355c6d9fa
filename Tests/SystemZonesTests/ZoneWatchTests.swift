import Foundation
import ScheddSystem
import SystemZones
import XCTest

/// The system zone database's watches against the real kernel (inotify through ScheddSystem): a
/// device-zone change (`ZoneChangeWatch`) and a tzdata update (`TzdataWatch`) are seen when a watched
/// file is replaced by rename, as timedatectl and package managers do; another file in the same
/// directory is not a change; a watched directory that goes away is an error, never silence. Also the
/// tzdata release, a zone's file path, and systemd's zone-name check.
final class ZoneWatchTests: XCTestCase {
    var temp = ""

    override func setUpWithError() throws {
        temp = try FileSystem.makeTemporaryDirectory(NSTemporaryDirectory() + "/schedd-zonewatch-XXXXXX")
        try FileManager.default.createDirectory(atPath: temp + "/zoneinfo/Test", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/Europe/Berlin", toPath: temp + "/zoneinfo/Test/Zone")
        try FileManager.default.createDirectory(atPath: temp + "/etc", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: temp + "/etc/localtime",
                                                   withDestinationPath: "/usr/share/zoneinfo/Europe/Berlin")
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: temp) }

    /// Replaces `path` by rename (a new inode), like `ln -sf` and dpkg.
    func replaceByRename(_ path: String, withCopyOf source: String) throws {
        try FileManager.default.copyItem(atPath: source, toPath: path + ".new")
        XCTAssertEqual(rename(path + ".new", path), 0)
    }

    /// Waits (up to 10 s) until `fd` is readable: the kernel has queued the events.
    func waitForEvents(_ fd: Int32) throws -> Bool {
        try FileDescriptor(rawValue: fd).waitReadable(milliseconds: 10_000)
    }

    func testZoneChangeWatch_seesTheLinkReplaced_notAnotherFile_andFailsWhenItsDirectoryGoes() throws {
        let watch = try ZoneChangeWatch(paths: [temp + "/etc/localtime"])
        XCTAssertFalse(try watch.consumeChange(), "nothing happened yet")
        try Data("x".utf8).write(to: URL(fileURLWithPath: temp + "/etc/hostname"))
        XCTAssertTrue(try waitForEvents(watch.fd))
        XCTAssertFalse(try watch.consumeChange(), "another file of /etc is no zone change")
        try FileManager.default.createSymbolicLink(atPath: temp + "/etc/localtime.new",
                                                   withDestinationPath: "/usr/share/zoneinfo/Asia/Kolkata")
        XCTAssertEqual(rename(temp + "/etc/localtime.new", temp + "/etc/localtime"), 0)
        XCTAssertTrue(try waitForEvents(watch.fd))
        XCTAssertTrue(try watch.consumeChange())
        try FileManager.default.removeItem(atPath: temp + "/etc")
        XCTAssertTrue(try waitForEvents(watch.fd))
        XCTAssertThrowsError(try watch.consumeChange()) { error in
            XCTAssertEqual((error as? SystemCallError)?.errno, .noSuchFileOrDirectory)
        }
    }

    func testTzdataWatch_seesAZoneInUseUpdated_notAZoneOutOfUse_andSkipsPosixStrings() throws {
        let database = ZoneDatabase(directory: temp + "/zoneinfo")
        let watch = try TzdataWatch(database: database)
        try watch.sync(["Test/Zone", "EST5EDT,M3.2.0,M11.1.0"])
        try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/Asia/Kolkata", toPath: temp + "/zoneinfo/Test/Other")
        XCTAssertTrue(try waitForEvents(watch.fd))
        XCTAssertFalse(try watch.consumeChange(), "a zone nobody uses is no update")
        try replaceByRename(temp + "/zoneinfo/Test/Zone", withCopyOf: "/usr/share/zoneinfo/Asia/Kolkata")
        XCTAssertTrue(try waitForEvents(watch.fd))
        XCTAssertTrue(try watch.consumeChange())
        XCTAssertEqual(database.filePath(of: "Test/Zone"), temp + "/zoneinfo/Test/Zone")
        XCTAssertNil(database.filePath(of: "../etc/passwd"))
    }

    func testTzdataVersion_fromTzdataZi_orPlusVersion_elseNil() throws {
        let database = ZoneDatabase(directory: temp + "/zoneinfo")
        XCTAssertNil(database.tzdataVersion)
        try Data("2031z\n".utf8).write(to: URL(fileURLWithPath: temp + "/zoneinfo/+VERSION"))
        XCTAssertEqual(database.tzdataVersion, "2031z")
        try Data("# version 2032a\n# Some zone data\n".utf8).write(to: URL(fileURLWithPath: temp + "/zoneinfo/tzdata.zi"))
        XCTAssertEqual(database.tzdataVersion, "2032a")
    }

    func testSystemdAcceptsZoneName_asTimezoneIsValid() {
        for name in ["UTC", "Europe/Berlin", "CET", "EST"] { XCTAssertTrue(ZoneDatabase.systemdAcceptsZoneName(name), name) }
        for name in ["CEST", "+05:00", "utc", "", "/Europe/Berlin", "Europe//Berlin", "Europe/", "Mars/Olympus", "Europe"] {
            XCTAssertFalse(ZoneDatabase.systemdAcceptsZoneName(name), name)
        }
    }
}
