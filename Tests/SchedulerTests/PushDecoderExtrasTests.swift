import SystemZones
import XCTest
@testable import Scheduler

/// `bk.deepLink`, `bk.action`, `bk.image`, `bk.messageId` and `snoozeSeconds` (CONTRACT §1, §8):
/// understood, never warned about, validated.
final class PushDecoderExtrasTests: XCTestCase {
    func push(_ bkExtra: String, local: String = "") -> String {
        let base = localPush(local)
        return "{\"bk\":{" + bkExtra + (bkExtra.isEmpty ? "" : ",") + base.dropFirst(7).dropLast(1) + "}"
    }

    func testTheEnvelopeIsUnderstood() throws {
        let text = push(#""messageId":"m-1","deepLink":"reminders://todo/42?x=1","action":{"name":"open-list","data":{"list":"home","n":[1,2]}},"image":"file:///home/u/a%20b.png""#,
                        local: #""snoozeSeconds":[600,3600]"#)
        let decoded = try PushDecoder.decode(Array(text.utf8), zones: ZoneDatabase.shared)
        XCTAssertEqual(decoded.unknownMembers, [], "no warnings for the envelope")
        XCTAssertEqual(decoded.messageId, "m-1")
        XCTAssertEqual(decoded.scheduleExtras, NotificationExtras(
            deepLink: "reminders://todo/42?x=1",
            action: AppActionRequest(name: "open-list", dataJSON: #"{"list":"home","n":[1,2]}"#),
            image: "file:///home/u/a%20b.png", snoozeSeconds: [600, 3600]))
        XCTAssertEqual(decoded.scheduleExtras.localImagePath, "/home/u/a b.png")
        XCTAssertEqual(decoded.local?.snoozeSeconds, [600, 3600])
    }

    func testImageKinds() throws {
        for (image, local) in [("/usr/share/pixmaps/x.png", "/usr/share/pixmaps/x.png"), ("file://localhost/tmp/y.png", "/tmp/y.png"),
                               ("https://example.org/z.png", nil), ("data:image/png;base64,AAAA", nil)] {
            let decoded = try PushDecoder.decode(Array(push("\"image\":\(jsonString(image))").utf8), zones: ZoneDatabase.shared)
            XCTAssertEqual(decoded.extras.image, image)
            XCTAssertEqual(decoded.extras.localImagePath, local, image)
        }
    }

    func testActionWithoutDataAndUnknownMemberInsideIt() throws {
        let decoded = try PushDecoder.decode(Array(push(#""action":{"name":"app.show","colour":1}"#).utf8), zones: ZoneDatabase.shared)
        XCTAssertEqual(decoded.extras.action, AppActionRequest(name: "app.show", dataJSON: nil))
        XCTAssertEqual(decoded.unknownMembers, ["bk.action.colour"])
    }

    /// An action name is the app's protocol (CONTRACT §1): any 1–128 bytes without control characters,
    /// whatever GAction allows — buzzkit's `show_offer`, spaces, colons, non-ASCII.
    func testActionNames_areTheApps_anyBytesWithoutControlCharacters() throws {
        for name in ["show_offer", "app.show", "a b", "offer:spring/20", "zeige_Angebot_ü", String(repeating: "n", count: 128)] {
            let decoded = try PushDecoder.decode(Array(push("\"action\":{\"name\":\(jsonString(name))}").utf8), zones: ZoneDatabase.shared)
            XCTAssertEqual(decoded.extras.action?.name, name)
        }
    }

    func testRejected_nameTheMemberAndRule() {
        let cases: [(String, String, String)] = [
            (push(#""deepLink":"no-scheme""#), "bk.deepLink", "must be an absolute URL"),
            (push(#""deepLink":"1http://x""#), "bk.deepLink", "must be an absolute URL"),
            (push(#""deepLink":"x:""#), "bk.deepLink", "must be an absolute URL"),
            (push(#""deepLink":"""#), "bk.deepLink", "must not be empty"),
            (push(#""deepLink":"a:\nb""#), "bk.deepLink", "control character"),
            (push(#""deepLink":7"#), "bk.deepLink", "must be a string"),
            (push("\"deepLink\":\(jsonString("a:" + String(repeating: "x", count: 4095)))"), "bk.deepLink", "longer than 4096 bytes"),
            (push(#""action":"open""#), "bk.action", "must be an object"),
            (push(#""action":{}"#), "bk.action.name", "required"),
            (push(#""action":{"name":"a\tb"}"#), "bk.action.name", "control character"),
            (push("\"action\":{\"name\":\(jsonString(String(repeating: "n", count: 129)))}"), "bk.action.name", "longer than 128 bytes"),
            (push(#""action":{"name":""}"#), "bk.action.name", "must not be empty"),
            (push(#""action":{"name":"x","data":{"a":1,"a":2}}"#), "bk.action.data", "duplicate member"),
            (push("\"action\":{\"name\":\"x\",\"data\":\(jsonString(String(repeating: "x", count: 16_400)))}"), "bk.action.data", "larger than 16384"),
            (push(#""image":[]"#), "bk.image", "must be a string"),
            (push(#""image":"""#), "bk.image", "must not be empty"),
            (push("", local: #""snoozeSeconds":[59]"#), "bk.local.snoozeSeconds[0]", "from 60 to 604800"),
            (push("", local: #""snoozeSeconds":[604801]"#), "bk.local.snoozeSeconds[0]", "from 60 to 604800"),
            (push("", local: #""snoozeSeconds":[60,120,180]"#), "bk.local.snoozeSeconds", "more than 2 durations"),
            (push("", local: #""snoozeSeconds":[600,600]"#), "bk.local.snoozeSeconds[1]", "duplicate duration 600"),
            (push("", local: #""snoozeSeconds":[60.5]"#), "bk.local.snoozeSeconds[0]", "must be an integer"),
            (push("", local: #""snoozeSeconds":["600"]"#), "bk.local.snoozeSeconds[0]", "must be an integer"),
            (push("", local: #""snoozeSeconds":[99999999999999999999]"#), "bk.local.snoozeSeconds[0]", "must be an integer"),
            (push("", local: #""snoozeSeconds":600"#), "bk.local.snoozeSeconds", "must be an array"),
        ]
        for (text, member, rule) in cases {
            do {
                _ = try PushDecoder.decode(Array(text.utf8), zones: ZoneDatabase.shared)
                XCTFail("accepted: \(text.prefix(200))")
            } catch {
                XCTAssertEqual(error.member, member, String(text.prefix(200)))
                XCTAssertTrue(error.rule.contains(rule), "\(text.prefix(200)): \(error)")
            }
        }
    }
}
