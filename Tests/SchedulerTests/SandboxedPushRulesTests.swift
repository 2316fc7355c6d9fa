import SchedCalendar
import SystemZones
import Scheduler
import XCTest

/// CONTRACT §8 "Nothing of the host": the table of what a sandboxed app's push may name.
final class SandboxedPushRulesTests: XCTestCase {
    let rules = SandboxedPushRules(declaredSchemes: ["Reminders", "file"])

    func decode(_ bk: String, local: String = "") throws -> Push {
        let text = #"{"bk":{"# + bk + (bk.isEmpty ? "" : ",") + #""local":{"id":"a","at":"2026-01-01T00:00:00Z","title":"t""#
            + local + "}}}"
        return try PushDecoder.decode(Array(text.utf8), zones: ZoneDatabase.shared)
    }

    func testDeepLinks() throws {
        for link in ["https://example.org/a", "HTTP://example.org", "reminders://todo/42", "REMINDERS:x"] {
            XCTAssertNoThrow(try rules.check(try decode(#""deepLink":""# + link + #"""#)), link)
        }
        for link in ["file:///home/u/.bashrc", "file:/etc/passwd", "file://localhost/etc/shadow", "File:///x", "about:blank",
                     "other://x", "data:text/plain,x", "javascript:alert(1)"] {
            XCTAssertThrowsError(try rules.check(try decode(#""deepLink":""# + link + #"""#)), link) { error in
                let e = error as? PushError
                XCTAssertEqual(e?.member, "bk.deepLink", link)
                XCTAssertTrue(e?.rule.hasPrefix("a sandboxed app may link only to http:, https:, reminders:") == true, "\(String(describing: e))")
            }
        }
        XCTAssertFalse(rules.declaredSchemes.contains("file"), "file is never accepted, even declared")
    }

    func testIconsAndImages() throws {
        for ok in ["mail-unread", "org.example.Reminders", "https://example.org/i.png", "data:image/png;base64,AAAA"] {
            XCTAssertNoThrow(try rules.check(try decode(#""image":""# + ok + #"""#, local: #","icon":""# + ok + #"""#)), ok)
        }
        for bad in ["/etc/shadow", "file:///etc/x.png", "FILE://localhost/x", "../x.png", "icons/x.png", "~/x.png", "..", "."] {
            XCTAssertThrowsError(try rules.check(try decode(#""image":""# + bad + #"""#)), bad) { error in
                XCTAssertEqual((error as? PushError)?.member, "bk.image", bad)
            }
            XCTAssertThrowsError(try rules.check(try decode("", local: #","icon":""# + bad + #"""#)), bad) { error in
                XCTAssertEqual((error as? PushError)?.member, "bk.local.icon", bad)
            }
        }
    }
}
