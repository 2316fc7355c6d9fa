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

/// Paging positions are sealed per app (CONTRACT §8 v3): they open only for the app and run that made
/// them, and consecutive ones say nothing about the distance between them.
final class PagingSealTests: XCTestCase {
    func testHistoryPositions_roundTrip_perApp_andHideDistances() {
        let seal = PagingSeal()
        var seen = Set<UInt64>()
        for seq: Int64 in [1, 2, 3, 1000, (1 << 48) - 1] {
            let position = seal.seal(history: seq, app: "org.example.A")
            XCTAssertEqual(seal.open(history: position, app: "org.example.A"), seq)
            XCTAssertNil(seal.open(history: position, app: "org.example.B"), "another app's position is refused")
            XCTAssertNil(PagingSeal().open(history: position, app: "org.example.A"), "an earlier run's is refused")
            XCTAssertNotEqual(position, UInt64(seq))
            seen.insert(position)
        }
        XCTAssertEqual(seen.count, 5)
        // Consecutive sequence numbers give positions that are not consecutive.
        let a = seal.seal(history: 500, app: "org.example.A"), b = seal.seal(history: 501, app: "org.example.A")
        XCTAssertGreaterThan(a > b ? a - b : b - a, 1 << 20)
        var refused = 0
        for raw in UInt64(1)...2000 where seal.open(history: raw, app: "org.example.A") == nil { refused += 1 }
        XCTAssertGreaterThan(refused, 1990, "plain numbers (main 067d7ec's positions) are refused")
    }

    func testListCursors_roundTrip_perApp() {
        let seal = PagingSeal()
        let cursor = PendingCursor(next: Instant(microseconds: 1_772_946_000_000_000), key: 42)
        let text = seal.seal(cursor, app: "org.example.A")
        XCTAssertEqual(seal.open(list: text, app: "org.example.A"), cursor)
        XCTAssertNil(seal.open(list: text, app: "org.example.B"))
        XCTAssertNil(seal.open(list: text, app: nil))
        XCTAssertNotEqual(seal.seal(PendingCursor(next: cursor.next, key: 43), app: "org.example.A").prefix(10), text.prefix(10))
    }
}
