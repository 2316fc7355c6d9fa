import XCTest
@testable import ScheddDesktop
import Scheduler

/// ActionInvoked / NotificationClosed / ActivationToken → steps, row by row of InteractionDecoder's table.
final class InteractionDecoderTests: XCTestCase {
    private var map = OnScreenMap()
    private var reshows = AlarmReshow()

    private func decode(_ signal: ServerInteraction) -> [InteractionStep] {
        InteractionDecoder.decode(signal, onScreen: &map, reshows: &reshows)
    }

    private func dismissed(_ n: DueNotification, reason: String? = nil) -> InteractionStep {
        .report(DesktopNotifier.Interaction(app: n.app, id: n.id, event: .dismissed, reason: reason))
    }

    func testUnknownServerId_givesNothing() {
        XCTAssertEqual(decode(.actionInvoked(id: 3, key: "default")), [])
        XCTAssertEqual(decode(.closed(id: 3, reason: 2)), [])
        XCTAssertEqual(decode(.activationToken(id: 3, token: "t")), [])
    }

    func testAction_opens_withTheTokenSentBefore_andKeepsItOnScreen() {
        let a = note("a")
        map.shown(a, as: 1)
        XCTAssertEqual(decode(.activationToken(id: 1, token: "wayland:42")), [])
        XCTAssertEqual(decode(.actionInvoked(id: 1, key: "default")), [.open(a, key: "default", token: "wayland:42")])
        XCTAssertEqual(map.notification(shownAs: 1), a, "a plain notification stays until the server closes it")
        XCTAssertEqual(decode(.actionInvoked(id: 1, key: "reply")), [.open(a, key: "reply", token: nil)], "a token is used once")
    }

    func testEmptyToken_isNotKept() {
        map.shown(note("a"), as: 1)
        _ = decode(.activationToken(id: 1, token: ""))
        XCTAssertNil(map.takeToken(for: 1))
    }

    func testCloseByUser_isDismissed_unlessAnActionCameFirst() {
        let a = note("a"), b = note("b")
        map.shown(a, as: 1)
        map.shown(b, as: 2)
        XCTAssertEqual(decode(.closed(id: 1, reason: 2)), [dismissed(a)])
        XCTAssertNil(map.serverId(app: a.app, id: "a"))
        _ = decode(.actionInvoked(id: 2, key: "default"))
        XCTAssertEqual(decode(.closed(id: 2, reason: 2)), [], "the close after an action is that action's, not a dismissal")
        XCTAssertNil(map.notification(shownAs: 2))
    }

    func testExpiredOrClosedBySchedd_recordsNothing_andForgets() {
        let a = note("a"), b = note("b")
        map.shown(a, as: 1)
        map.shown(b, as: 2)
        XCTAssertEqual(decode(.closed(id: 1, reason: 1)), [])
        XCTAssertEqual(decode(.closed(id: 2, reason: 3)), [])
        XCTAssertTrue(map.onScreen.isEmpty)
    }

    func testSnoozeOffered_closesAndSnoozes_notOffered_opens() {
        let a = note("a", snooze: [600])
        map.shown(a, as: 4)
        XCTAssertEqual(decode(.actionInvoked(id: 4, key: "schedd-snooze-300")), [.open(a, key: "schedd-snooze-300", token: nil)],
                       "a snooze the notification did not offer is an ordinary action")
        XCTAssertEqual(decode(.actionInvoked(id: 4, key: "schedd-snooze-600")), [.close(serverId: 4), .snooze(a, seconds: 600)])
        XCTAssertNil(map.serverId(app: a.app, id: "a"))
    }

    func testAlarmDismissButton_closesAndReportsDismissed() {
        let alarm = note("wake", alarm: true)
        map.shown(alarm, as: 6)
        XCTAssertEqual(decode(.actionInvoked(id: 6, key: AlarmPresentation.dismissKey)),
                       [.close(serverId: 6), dismissed(alarm, reason: "action:schedd-dismiss")])
        XCTAssertNil(map.notification(shownAs: 6))
    }

    func testDismissKeyOnAPlainNotification_isAnOrdinaryAction() {
        let a = note("a")
        map.shown(a, as: 6)
        XCTAssertEqual(decode(.actionInvoked(id: 6, key: AlarmPresentation.dismissKey)),
                       [.open(a, key: AlarmPresentation.dismissKey, token: nil)])
    }

    func testOpenedAlarm_isClosedAfterOpening() {
        let alarm = note("wake", alarm: true)
        map.shown(alarm, as: 2)
        XCTAssertEqual(decode(.actionInvoked(id: 2, key: "default")), [.open(alarm, key: "default", token: nil), .close(serverId: 2)])
        XCTAssertNil(map.notification(shownAs: 2))
    }

    func testAlarmExpiredOrUndefined_isShownAgain_dismissedIsNot() {
        let alarm = note("wake", alarm: true)
        map.shown(alarm, as: 1)
        XCTAssertEqual(decode(.closed(id: 1, reason: 1)),
                       [.reshowAlarm(alarm, why: "the notification server closed it unanswered (reason 1)")])
        map.shown(alarm, as: 2)
        XCTAssertEqual(decode(.closed(id: 2, reason: 4)),
                       [.reshowAlarm(alarm, why: "the notification server closed it unanswered (reason 4)")])
        map.shown(alarm, as: 3)
        XCTAssertEqual(decode(.closed(id: 3, reason: 3)), [], "closed by schedd: not shown again")
        map.shown(alarm, as: 4)
        XCTAssertEqual(decode(.closed(id: 4, reason: 2)), [dismissed(alarm)])
    }

    func testAnsweringAnAlarm_startsItsReshowCountAgain() {
        let alarm = note("wake", alarm: true)
        let key = InteractionDecoder.alarmKey(alarm)
        for _ in 0..<AlarmReshow.maxReshows { XCTAssertTrue(reshows.allow(key)) }
        XCTAssertFalse(reshows.allow(key), "the bound is reached")
        map.shown(alarm, as: 1)
        _ = decode(.actionInvoked(id: 1, key: "default"))
        XCTAssertTrue(reshows.allow(key), "an action on the alarm resets its count")
        for _ in 1..<AlarmReshow.maxReshows { _ = reshows.allow(key) }
        XCTAssertFalse(reshows.allow(key))
        map.shown(alarm, as: 2)
        _ = decode(.closed(id: 2, reason: 2))
        XCTAssertTrue(reshows.allow(key), "a dismissal resets it too")
    }
}
