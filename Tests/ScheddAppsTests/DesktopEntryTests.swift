import XCTest
@testable import ScheddApps

final class DesktopEntryTests: XCTestCase {
    func testParsesTheKeysSchedUses() throws {
        let text = """
        [Desktop Entry]
        Type=Application
        Name=Reminders
        Name[de]=Erinnerungen
        Icon=org.example.Reminders
        Exec=reminders --open %U
        DBusActivatable=true

        [Desktop Action new]
        Name=New
        Exec=reminders --new
        """
        let entry = try XCTUnwrap(DesktopEntry(bytes: Array(text.utf8), path: "/x/org.example.Reminders.desktop", locale: "de_AT"))
        XCTAssertEqual(entry, DesktopEntry(path: "/x/org.example.Reminders.desktop", name: "Erinnerungen",
                                           icon: "org.example.Reminders", exec: "reminders --open %U", dbusActivatable: true))
    }

    func testNotAnApplication() {
        for text in ["[Desktop Entry]\nType=Link\nName=x\nURL=https://a\n",
                     "[Desktop Entry]\nType=Application\nName=x\nHidden=true\n",
                     "[Desktop Entry]\nType=Application\n",
                     "[Other]\nType=Application\nName=x\n",
                     "[Desktop Entry]\nName=x\n"] {
            XCTAssertNil(DesktopEntry(bytes: Array(text.utf8), path: "/p"), text)
        }
    }

    func testLocatorSearchOrder() {
        let locator = DesktopEntryLocator(xdgDataHome: nil, xdgDataDirs: "/opt/share/:relative:/usr/share",
                                          home: "/home/u", locale: nil)
        XCTAssertEqual(locator.directories, [
            "/home/u/.local/share/applications", "/opt/share/applications", "/usr/share/applications",
            "/home/u/.local/share/flatpak/exports/share/applications", "/var/lib/flatpak/exports/share/applications",
        ])
        let defaults = DesktopEntryLocator(xdgDataHome: "/d", xdgDataDirs: nil, home: nil, locale: nil)
        XCTAssertEqual(defaults.directories, ["/d/applications", "/usr/local/share/applications",
                                              "/usr/share/applications", "/var/lib/flatpak/exports/share/applications"])
    }

    /// Real files in a temporary XDG_DATA_DIRS: the user's copy wins, a hidden user copy hides the app.
    func testLocatorOnRealFiles() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("schedd-desktop-\(getpid())")
        defer { try? FileManager.default.removeItem(at: root) }
        let user = root.appendingPathComponent("home/applications"), system = root.appendingPathComponent("sys/applications")
        try FileManager.default.createDirectory(at: user, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: system, withIntermediateDirectories: true)
        try "[Desktop Entry]\nType=Application\nName=System Copy\nExec=a\n"
            .write(to: system.appendingPathComponent("org.example.A.desktop"), atomically: true, encoding: .utf8)
        try "[Desktop Entry]\nType=Application\nName=System B\nExec=b\n"
            .write(to: system.appendingPathComponent("org.example.B.desktop"), atomically: true, encoding: .utf8)
        try "[Desktop Entry]\nType=Application\nName=User Copy\nExec=a\n"
            .write(to: user.appendingPathComponent("org.example.A.desktop"), atomically: true, encoding: .utf8)
        try "[Desktop Entry]\nType=Application\nName=B\nHidden=true\n"
            .write(to: user.appendingPathComponent("org.example.B.desktop"), atomically: true, encoding: .utf8)
        let env = ["XDG_DATA_HOME": root.appendingPathComponent("home").path, "XDG_DATA_DIRS": root.appendingPathComponent("sys").path]
        let locator = DesktopEntryLocator(environment: { env[$0] })
        let read = { (path: String) in ProcessInspector.readSmallFile(path, limit: KeyFile.maxBytes) }
        XCTAssertEqual(locator.entry(for: try AppID(validating: "org.example.A"), read: read)?.name, "User Copy")
        XCTAssertNil(locator.entry(for: try AppID(validating: "org.example.B"), read: read))
        XCTAssertNil(locator.entry(for: try AppID(validating: "org.example.None"), read: read))
    }
}

final class DesktopEntrySchemesTests: XCTestCase {
    /// `MimeType=`'s `x-scheme-handler/…` items are the schemes a sandboxed app may link to.
    func testURISchemes() {
        let text = "[Desktop Entry]\nType=Application\nName=R\nExec=r %U\n"
            + "MimeType=text/plain; x-scheme-handler/Reminders;x-scheme-handler/reminders;X-Scheme-Handler/web+r;x-scheme-handler/;\n"
        let entry = DesktopEntry(bytes: Array(text.utf8), path: "/x.desktop")
        XCTAssertEqual(entry?.uriSchemes, ["reminders", "web+r"])
        let none = DesktopEntry(bytes: Array("[Desktop Entry]\nType=Application\nName=R\n".utf8), path: "/x.desktop")
        XCTAssertEqual(none?.uriSchemes, [])
    }
}
