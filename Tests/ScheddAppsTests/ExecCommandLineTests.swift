import Scheduler
import XCTest
@testable import ScheddApps

final class ExecCommandLineTests: XCTestCase {
    let entry = DesktopEntry(path: "/usr/share/applications/org.example.R.desktop", name: "Reminders",
                             icon: "org.example.R", exec: nil, dbusActivatable: false)

    func testFieldCodes() throws {
        let link = "reminders://todo/42?x=1"
        let cases: [(String, String?, [String])] = [
            ("reminders --new-window %U", link, ["reminders", "--new-window", link]),
            ("reminders --new-window %U", nil, ["reminders", "--new-window"]),
            ("reminders %u", link, ["reminders", link]),
            // CONTRACT §8 "Nothing of the host": a link is never a file argument (before issue 31, %f got
            // the path of a file: link, %F a host path such as ~/.ssh/id_rsa).
            ("viewer %f", "file:///home/u/My%20Notes/a.txt", ["viewer"]),
            ("viewer %F", "file:///home/u/.ssh/id_rsa", ["viewer"]),
            ("viewer --path=%f", "file:///etc/shadow", ["viewer", "--path="]),
            ("viewer %F", "https://example.org/a.txt", ["viewer"]),
            ("viewer %u", "file:///home/u/notes.txt", ["viewer", "file:///home/u/notes.txt"]),
            ("app %i --name %c --from %k", nil,
             ["app", "--icon", "org.example.R", "--name", "Reminders", "--from", "/usr/share/applications/org.example.R.desktop"]),
            ("app --url=%u", link, ["app", "--url=" + link]),
            ("app 100%% %d %D %n %N %v %m", nil, ["app", "100%"]),
            ("\"/opt/My App/bin/app\" \"quoted %u stays\" \"a \\\"b\\\" \\$c \\\\d \\`e\\`\"", link,
             ["/opt/My App/bin/app", "quoted %u stays", "a \"b\" $c \\d `e`"]),
            ("  spaced\tapp   %U  ", link, ["spaced", "app", link]),
            ("flatpak run --branch=stable --arch=x86_64 --command=reminders --file-forwarding org.example.R @@u %U @@",
             link, ["flatpak", "run", "--branch=stable", "--arch=x86_64", "--command=reminders", "--file-forwarding",
                    "org.example.R", "@@u", link, "@@"]),
        ]
        for (exec, url, expected) in cases {
            XCTAssertEqual(try ExecCommandLine.arguments(exec, entry: entry, url: url), expected, exec)
        }
    }

    func testRejected() {
        for (exec, message) in [("app \"open", "unterminated quote"), ("app %x", "unknown field code %x"),
                                ("app 50%", "lone %"), ("", "names no program"), ("%U", "names no program"),
                                ("app \\", "inside an escape")] {
            XCTAssertThrowsError(try ExecCommandLine.arguments(exec, entry: entry, url: nil), exec) { error in
                XCTAssertTrue("\(error)".contains(message), "\(exec): \(error)")
            }
        }
    }

    /// A link is never where it can be read as an option or a path, and a Flatpak app's file forwarding
    /// (`@@u %U @@`) never gets a file: link (it would hand the app that file through the document portal).
    func testLinksThatCouldEscape_areNotPassed() {
        let flatpak = "flatpak run --command=r --file-forwarding org.example.R @@u %U @@"
        for (exec, url, message) in [
            (flatpak, "file:///home/u/.bashrc", "file forwarding"),
            (flatpak, "FILE://localhost/etc/shadow", "file forwarding"),
            ("app %U", "--help", "not an absolute URL"),
            ("app %U", "-oProxyCommand=x", "not an absolute URL"),
            (flatpak, "@@", "not an absolute URL"),
            ("app %u", "/etc/passwd", "not an absolute URL"),
        ] {
            XCTAssertThrowsError(try ExecCommandLine.arguments(exec, entry: entry, url: url), "\(exec) \(url)") { error in
                XCTAssertTrue("\(error)".contains(message), "\(url): \(error)")
            }
        }
        XCTAssertEqual(try ExecCommandLine.arguments(flatpak, entry: entry, url: "https://example.org/x"),
                       ["flatpak", "run", "--command=r", "--file-forwarding", "org.example.R", "@@u", "https://example.org/x", "@@"])
    }

    func testLocalPathOfFileURL() {
        XCTAssertEqual(NotificationExtras.localPath(ofFileURL: "file:///a%2Fb/c#frag"), "/a/b/c")
        XCTAssertEqual(NotificationExtras.localPath(ofFileURL: "file://localhost/tmp/x"), "/tmp/x")
        XCTAssertNil(NotificationExtras.localPath(ofFileURL: "file://host/tmp/x"))
        XCTAssertNil(NotificationExtras.localPath(ofFileURL: "file:///a%00b"))
        XCTAssertNil(NotificationExtras.localPath(ofFileURL: "file:///a%ZZ"))
    }
}
