import Foundation
import Glibc
import XCTest

/// CONTRACT §8 "Nothing of the host" (issue 31 item 1), tried as a hostile Flatpak app would, with the
/// real daemon (desktop notifier), the recording notification server, the test UnifiedPush distributor
/// and the app's desktop file as Flatpak exports it when the app is not D-Bus activatable
/// (`… --file-forwarding APPID @@u %U @@`, Exec pointing at Tests/Support/apps/record_launch.sh).
/// On main 067d7ec every refused push here was scheduled, and a click handed the file to the app
/// (`@@u file:///… @@`, or a host path through `%F`).
final class IsolationHostTests: XCTestCase {
    static let app = "org.example.Hostile"
    static let other = "org.example.Other"
    var desktop: DesktopDaemon!
    var h: ScheddHarness { desktop.harness }
    var server: PythonService { desktop.server }
    var launches = ""

    override func setUpWithError() throws {
        desktop = try DesktopDaemon(fakeClock: "2026-03-08T05:00:00Z") { apps in
            self.launches = apps.directory + "/launches.jsonl"
            let script = Build.supportFile("apps/record_launch.sh")
            try apps.add(Self.app, """
                [Desktop Entry]
                Type=Application
                Name=Hostile
                Exec=\(script) \(self.launches) --file-forwarding \(Self.app) @@u %U @@
                MimeType=text/plain;x-scheme-handler/hostile;x-scheme-handler/file;
                """)
            try apps.add(Self.other, "[Desktop Entry]\nType=Application\nName=Other\nExec=\(script) \(self.launches) %F\n"
                         + "MimeType=x-scheme-handler/other;\n")
        }
    }

    override func tearDown() { desktop?.tearDown() }

    func push(_ bk: String, id: String) -> String {
        #"{"bk":{"# + bk + #","local":{"id":""# + id + #"","at":"2026-03-08T05:01:00Z","title":"t"}}}"#
    }

    func pushAsFlatpak(_ text: String) throws -> CommandResult {
        try runAsFlatpak(Self.app, Build.schedd, ["push", "-", "--json", "--bus", h.bus.address], stdin: text)
    }

    func pendingIDs(_ app: String) throws -> [String] { try h.list(app: app).compactMap { $0["id"] as? String } }

    /// Every way a sandboxed app could name a host file or another app's scheme as its deep link is
    /// refused at push time (exit 1, the error naming bk.deepLink and the rule) and stores nothing —
    /// `file` even though its desktop file declares it; http, https and its own scheme still work.
    func testSandboxedApp_deepLinksToFilesAndForeignSchemes_areRefusedAtPush() throws {
        let refused = ["file:///root/.bashrc", "file:/etc/passwd", "file://localhost/etc/shadow", "FILE:///etc/shadow",
                       "about:blank", "other://item/1", "data:text/plain,x"]
        for (i, link) in refused.enumerated() {
            let r = try pushAsFlatpak(push(#""deepLink":""# + link + #"""#, id: "bad:\(i)"))
            XCTAssertEqual(r.status, 1, "\(link) must be refused: \(r.stdout) \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("bk.deepLink") && r.stderr.contains("sandboxed app may link only to http:, https:, hostile:"),
                          "\(link): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("InvalidArgument") || r.stderr.contains("bk.deepLink:"), r.stderr)
        }
        XCTAssertEqual(try pendingIDs(Self.app), [], "nothing of a refused push is stored")

        for (i, link) in ["https://example.org/x", "http://example.org/y", "hostile://item/42", "Hostile:item/43"].enumerated() {
            let r = try pushAsFlatpak(push(#""deepLink":""# + link + #"""#, id: "good:\(i)"))
            XCTAssertEqual(r.status, 0, "\(link): \(r.stderr)")
        }
        XCTAssertEqual(try pendingIDs(Self.app).sorted(), ["good:0", "good:1", "good:2", "good:3"])

        // NDJSON (PushBatch): the bad line alone is refused, the others are applied.
        let batch = [push(#""deepLink":"https://example.org/b""#, id: "batch:1"),
                     push(#""deepLink":"file:///etc/shadow""#, id: "batch:2"),
                     push(#""deepLink":"hostile://b""#, id: "batch:3")].joined(separator: "\n")
        let r = try pushAsFlatpak(batch)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stdout.contains("bk.deepLink: a sandboxed app"), r.stdout)
        XCTAssertEqual(try pendingIDs(Self.app).filter { $0.hasPrefix("batch:") }.sorted(), ["batch:1", "batch:3"])
    }

    /// A sandboxed app's icon and image are themed names or URLs, never local files (the notification
    /// server would read them for it).
    func testSandboxedApp_localFilesAsIconOrImage_areRefused() throws {
        let cases: [(String, String)] = [
            (#""image":"/root/.ssh/id_rsa""#, "bk.image"), (#""image":"file:///etc/shadow""#, "bk.image"),
            (#""image":"../../etc/x.png""#, "bk.image"),
        ]
        for (i, (member, name)) in cases.enumerated() {
            let r = try pushAsFlatpak(push(member, id: "img:\(i)"))
            XCTAssertEqual(r.status, 1, "\(member): \(r.stdout)")
            XCTAssertTrue(r.stderr.contains("\(name): a sandboxed app may give a themed icon name or a URL"), r.stderr)
        }
        for (i, icon) in ["/etc/shadow", "file:///root/x.png", "~/x.png"].enumerated() {
            let text = #"{"bk":{"local":{"id":"icon:\#(i)","at":"2026-03-08T05:01:00Z","title":"t","icon":"\#(icon)"}}}"#
            let r = try pushAsFlatpak(text)
            XCTAssertEqual(r.status, 1, "\(icon): \(r.stdout)")
            XCTAssertTrue(r.stderr.contains("bk.local.icon: a sandboxed app may give"), r.stderr)
        }
        XCTAssertEqual(try pendingIDs(Self.app), [])
        let ok = #"{"bk":{"image":"https://example.org/i.png","local":{"id":"ok","at":"2026-03-08T05:01:00Z","title":"t","icon":"mail-unread"}}}"#
        XCTAssertEqual(try pushAsFlatpak(ok).status, 0)
    }

    /// Unsandboxed callers keep CONTRACT §1's rules (documented): a file: link and a local image are
    /// stored. But at launch the link never reaches the Flatpak app's file forwarding, nor a `%F`.
    func testUnsandboxedCaller_keepsTodaysRules_butALaunchNeverForwardsAFile() throws {
        let toFlatpak = push(#""deepLink":"file:///root/.bashrc","image":"/usr/share/pixmaps/x.png""#, id: "n:1")
        XCTAssertEqual(try h.cli(["push", "-", "--app", Self.app], stdin: toFlatpak).status, 0)
        let toOther = push(#""deepLink":"file:///root/.ssh/id_rsa""#, id: "n:2")
        XCTAssertEqual(try h.cli(["push", "-", "--app", Self.other], stdin: toOther).status, 0)
        try h.advance("2min")
        XCTAssertTrue(waitUntil { self.server.calls("Notify").count == 2 })
        for notify in server.calls("Notify") {
            let sid = try XCTUnwrap(notify["reply"] as? Int)
            try notifyControl(h.bus.address, ["EmitActivation", "uss", "\(sid)", "tok", "default"])
        }
        var opened: [String: [String: Any]] = [:]
        XCTAssertTrue(waitUntil(30) {
            for app in [Self.app, Self.other] {
                opened[app] = (try? self.h.history(app: app))?.first { $0["event"] as? String == "opened" }
            }
            return opened.count == 2
        }, h.daemonStderr)
        // The Flatpak command line is not run with a file: link: that would grant the file.
        XCTAssertEqual(opened[Self.app]?["ok"] as? Bool, false)
        XCTAssertTrue((opened[Self.app]?["ran"] as? String ?? "").contains("file forwarding"), "\(opened)")
        // The other app is launched, but %F gets nothing (main 067d7ec passed /root/.ssh/id_rsa).
        XCTAssertEqual(opened[Self.other]?["ok"] as? Bool, true, "\(opened)")
        XCTAssertTrue(waitUntil(30) { (try? String(contentsOfFile: self.launches, encoding: .utf8))?.hasSuffix("\n") == true })
        let lines = (try String(contentsOfFile: launches, encoding: .utf8)).split(separator: "\n")
        XCTAssertEqual(lines.count, 1, "only the other app was launched: \(lines)")
        XCTAssertEqual(parseObject(String(lines[0]))?["argv"] as? [String], [], "no file argument: \(lines)")
    }

    /// A UnifiedPush message comes from the network: it is held to the sandboxed rules whatever
    /// registered (here an unsandboxed caller), so a file: link in it is refused and nothing is stored.
    func testUnifiedPushMessage_withAFileLink_isRefused() throws {
        let distributor = try TestDistributor(address: h.bus.address, directory: h.directory)
        defer { distributor.stop() }
        let registration = try h.registerForPushes(Self.app)
        _ = try distributor.send(push(#""deepLink":"file:///root/.bashrc""#, id: "up:1"), to: registration, id: "m1")
        _ = try distributor.send(push(#""deepLink":"hostile://ok""#, id: "up:2"), to: registration, id: "m2")
        XCTAssertTrue(waitUntil(30) { (try? self.pendingIDs(Self.app)) == ["up:2"] },
                      "only the message with an allowed link is applied: \(String(describing: try? pendingIDs(Self.app)))")
    }
}
