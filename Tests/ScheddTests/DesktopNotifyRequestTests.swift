import SeededRandomness
import Foundation
import Scheduler
import ScheddDesktop
import XCTest

/// The pure parts: the Notify argument mapping and body escaping (no bus).
final class DesktopNotifyRequestTests: XCTestCase {
    private let configuration = DesktopNotifier.Configuration()

    func testEscape_table() {
        let cases: [(String, String)] = [
            ("", ""),
            ("plain text", "plain text"),
            ("a & b", "a &amp; b"),
            ("<b>bold</b>", "&lt;b&gt;bold&lt;/b&gt;"),
            ("\"q\" 'a'", "&quot;q&quot; &apos;a&apos;"),
            ("&amp;", "&amp;amp;"),                       // already-escaped text stays literal too
            ("line1\nline2 — ünïcödé 🎉", "line1\nline2 — ünïcödé 🎉"),
        ]
        for (input, expected) in cases { XCTAssertEqual(NotificationMarkup.escape(input), expected, input) }
    }

    /// Seeded random strings over an alphabet rich in markup characters: the escaped text is
    /// well-formed XML character data whose parsed text (Python's ElementTree, independent of our
    /// code) is the original.
    func testEscape_randomStrings_parseBackToTheOriginal() throws {
        var generator = SplitMix64(seed: 0x5C4E_DD00_0001)
        let alphabet = Array("ab <>&\"';/=#\n\tx&amp;é🎉")
        var inputs: [String] = []
        for _ in 0..<200 {
            let length = Int(generator.next() % 24)
            inputs.append(String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }))
        }
        let escaped = inputs.map(NotificationMarkup.escape)
        let payload = try JSONSerialization.data(withJSONObject: escaped)
        let path = NSTemporaryDirectory() + "schedd-escape-\(UUID().uuidString).json"
        try payload.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let script = "import sys, json, xml.etree.ElementTree as ET; "
            + "print(json.dumps([''.join(ET.fromstring('<m>' + s + '</m>').itertext()) for s in json.load(open(sys.argv[1]))]))"
        let (status, output) = try DesktopHarness.run(DesktopHarness.python, ["-c", script, path])
        XCTAssertEqual(status, 0, "escaped text is not well-formed XML")
        let parsed = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String])
        XCTAssertEqual(parsed, inputs)
    }

    func testFileURI_percentEncodesEverythingButUnreservedAndSlash() {
        XCTAssertEqual(NotifyRequest.fileURI(path: "/a b/x.png"), "file:///a%20b/x.png")
        XCTAssertEqual(NotifyRequest.fileURI(path: "/ü/#?%.png"), "file:///%C3%BC/%23%3F%25.png")
        XCTAssertEqual(NotifyRequest.fileURI(path: "/A-Z_a~z.0/9"), "file:///A-Z_a~z.0/9")
    }

    func testRequest_actionNamedDefault_isNotDuplicated() {
        let note = dueNotification(id: "x", actions: [NotificationAction(id: "default", title: "Show"),
                                                      NotificationAction(id: "later", title: "Later")])
        let request = NotifyRequest(notification: note, capabilities: ["actions"], replacesId: 0,
                                    configuration: configuration)
        XCTAssertEqual(request.actions, ["default", "Show", "later", "Later"])
    }

    func testRequest_hintsInStableOrder_andEmptyCategoryOmitted() {
        let note = dueNotification(id: "x", icon: "/i.png", category: "")
        let request = NotifyRequest(notification: note, capabilities: [], replacesId: 7, configuration: configuration)
        XCTAssertEqual(request.hints.map(\.key), ["urgency", "desktop-entry", "image-path", "x-schedd-id"])
        XCTAssertEqual(request.replacesId, 7)
        XCTAssertEqual(request.actions, [], "no actions without the capability")
    }

    func testExpireTimeouts_configurable() {
        var configuration = DesktopNotifier.Configuration()
        configuration.expireTimeouts = ExpireTimeouts(low: 1000, normal: 2000, critical: 3000)
        let request = NotifyRequest(notification: dueNotification(id: "x", urgency: .normal), capabilities: [],
                                    replacesId: 0, configuration: configuration)
        XCTAssertEqual(request.expireTimeout, 2000)
    }
}

