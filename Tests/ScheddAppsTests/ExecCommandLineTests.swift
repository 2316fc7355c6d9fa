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
            ("viewer %f", "file:///home/u/My%20Notes/a.txt", ["viewer", "/home/u/My Notes/a.txt"]),
            ("viewer %F", "https://example.org/a.txt", ["viewer"]),
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

    func testLocalPath() {
        XCTAssertEqual(ExecCommandLine.localPath(ofFileURL: "file:///a%2Fb/c#frag"), "/a/b/c")
        XCTAssertEqual(ExecCommandLine.localPath(ofFileURL: "file://localhost/tmp/x"), "/tmp/x")
        XCTAssertNil(ExecCommandLine.localPath(ofFileURL: "file://host/tmp/x"))
        XCTAssertNil(ExecCommandLine.localPath(ofFileURL: "file:///a%00b"))
        XCTAssertNil(ExecCommandLine.localPath(ofFileURL: "file:///a%ZZ"))
    }
}
