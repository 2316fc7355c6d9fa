import XCTest
@testable import ScheddDesktop

/// The on-screen map: schedd's (app, id) ↔ the server's id, and what each server id remembers.
final class OnScreenMapTests: XCTestCase {
    func testShown_mapsBothWays() {
        var map = OnScreenMap()
        let a = note("a")
        map.shown(a, as: 7)
        XCTAssertEqual(map.serverId(app: a.app, id: "a"), 7)
        XCTAssertEqual(map.notification(shownAs: 7), a)
        XCTAssertNil(map.serverId(app: "org.other.App", id: "a"), "the key is (app, id)")
        XCTAssertNil(map.notification(shownAs: 8))
    }

    func testTwoApps_sameScheduleId_keepTheirOwnServerIds() {
        var map = OnScreenMap()
        map.shown(note("run_1:a", app: "org.one.App"), as: 1)
        map.shown(note("run_1:a", app: "org.two.App"), as: 2)
        XCTAssertEqual(map.serverId(app: "org.one.App", id: "run_1:a"), 1)
        XCTAssertEqual(map.serverId(app: "org.two.App", id: "run_1:a"), 2)
        XCTAssertEqual(map.onScreen.count, 2)
    }

    /// Ids are bytes (the store's keys): `é` precomposed and `e` + U+0301 are two schedules, each with its
    /// own notification, though Swift's `String` calls them equal.
    func testCanonicallyEquivalentIds_areTwoSchedules_eachWithItsOwnServerId() {
        var map = OnScreenMap()
        map.shown(note("\u{E9}"), as: 1)
        map.shown(note("e\u{301}"), as: 2)
        XCTAssertEqual(map.serverId(app: note("x").app, id: "\u{E9}"), 1)
        XCTAssertEqual(map.serverId(app: note("x").app, id: "e\u{301}"), 2)
        XCTAssertEqual(map.onScreen.count, 2, "the second did not replace the first")
        XCTAssertEqual(map.removeSchedule(app: note("x").app, id: "e\u{301}"), 2)
        XCTAssertEqual(map.serverId(app: note("x").app, id: "\u{E9}"), 1, "closing one leaves the other")
    }

    func testShownUnderANewServerId_forgetsTheOldOne() {
        var map = OnScreenMap()
        let a = note("a")
        map.shown(a, as: 3)
        map.shown(a, as: 4)
        XCTAssertEqual(map.serverId(app: a.app, id: "a"), 4)
        XCTAssertNil(map.notification(shownAs: 3), "the replaced server id is no longer on screen")
        XCTAssertEqual(map.onScreen, [a])
    }

    func testShownAgain_startsClean_noActionNoToken() {
        var map = OnScreenMap()
        let a = note("a")
        map.shown(a, as: 5)
        map.markActionInvoked(5)
        map.keep(token: "tok", for: 5)
        map.shown(a, as: 5)
        XCTAssertFalse(map.actionWasInvoked(5))
        XCTAssertNil(map.takeToken(for: 5))
    }

    func testRemoveSchedule_returnsItsServerId_andForgetsIt() {
        var map = OnScreenMap()
        let a = note("a")
        map.shown(a, as: 9)
        map.markActionInvoked(9)
        XCTAssertEqual(map.removeSchedule(app: a.app, id: "a"), 9)
        XCTAssertNil(map.notification(shownAs: 9))
        XCTAssertFalse(map.actionWasInvoked(9))
        XCTAssertNil(map.removeSchedule(app: a.app, id: "a"), "removed once only")
    }

    func testTokenIsTakenOnce() {
        var map = OnScreenMap()
        map.shown(note("a"), as: 2)
        map.keep(token: "x11:123", for: 2)
        XCTAssertEqual(map.takeToken(for: 2), "x11:123")
        XCTAssertNil(map.takeToken(for: 2))
    }

    func testClear_forgetsEverything() {
        var map = OnScreenMap()
        map.shown(note("a"), as: 1)
        map.shown(note("b"), as: 2)
        map.markActionInvoked(1)
        map.clear()
        XCTAssertTrue(map.onScreen.isEmpty)
        XCTAssertNil(map.serverId(app: "org.example.App", id: "a"))
        XCTAssertFalse(map.actionWasInvoked(1))
    }
}
