import Foundation
import XCTest
@testable import ScheddApps

final class SystemdUnitTests: XCTestCase {
    /// The unit names of the portal's own test plus the contract's two forms.
    func testAppIDFromUnitName() {
        let cases: [(String, String?)] = [
            ("app-not-a-well-formed-unit-name", nil),
            ("app-gnome-org.gnome.Evolution\\x2dalarm\\x2dnotify-2437.scope", "org.gnome.Evolution-alarm-notify"),
            ("app-gnome-org.gnome.Epiphany-182352.scope", "org.gnome.Epiphany"),
            ("app-glib-spice\\x2dvdagent-1839.scope", nil),
            ("app-KDE-org.kde.okular@12345.service", "org.kde.okular"),
            ("app-org.kde.amarok.service", "org.kde.amarok"),
            ("app-gnome-org.gnome.SettingsDaemon.DiskUtilityNotify-autostart.service",
             "org.gnome.SettingsDaemon.DiskUtilityNotify"),
            ("app-gnome-org.gnome.Terminal-92502.slice", "org.gnome.Terminal"),
            ("app-com.obsproject.Studio-d70acc38b5154a3a8b4a60accc4b15f4.scope", "com.obsproject.Studio"),
            ("app-org.example.Reminders-42.scope", "org.example.Reminders"),
            ("app-org.example.Reminders@42.service", "org.example.Reminders"),
            // Issue 31 item 5: systemd's XDG naming, services and scopes, with and without launcher,
            // `@` instance, `-autostart`, escaped ids (systemd.io/DESKTOP_ENVIRONMENTS).
            ("app-gnome-org.gnome.Terminal-12345.scope", "org.gnome.Terminal"),
            ("app-org.gnome.Nautilus@abc.service", "org.gnome.Nautilus"),
            ("app-flatpak-org.mozilla.firefox-1234.scope", "org.mozilla.firefox"),
            ("app-gnome-firefox\\x2desr-4321.scope", nil),            // firefox-esr: not reverse DNS
            ("app-KDE-org.kde.dolphin@8f2a91.service", "org.kde.dolphin"),
            ("app-KDE-org.kde.okular.service", "org.kde.okular"),
            ("app-schedd-org.example.Probe@0123abcd.service", "org.example.Probe"),
            ("app-schedd-org.example.my\\x2dapp@0123456789abcdef.service", "org.example.my-app"),
            // schedd before issue 31 named its units this way (a scope's form): still read right.
            ("app-schedd-org.example.my\\x2dapp-0123456789abcdef.service", "org.example.my-app"),
            ("app-gnome-org.gnome.Evolution\\x2dalarm\\x2dnotify-2437-autostart.service", "org.gnome.Evolution-alarm-notify"),
            ("app-org.gnome.Evince@autostart.service", "org.gnome.Evince"),
            ("app-gnome-org.gnome.Evince-12345.service", "org.gnome.Evince"),
            ("app-org.gnome.Evince-12345.service", "org.gnome.Evince"),
            ("app-gnome-org.example.my-app-42.scope", "org.example.my-app"),   // a launcher that does not escape
            ("app-org.example.App@.service", nil),                           // a template, not a unit
            ("app-org.example.App@a/b.service", nil),
            ("app-gnome-.scope", nil),
            ("app-gnome-42.scope", nil),
            ("app-flatpak-org.example.Reminders-1234.scope", "org.example.Reminders"),
            ("org.example.Reminders-42.scope", nil),               // no app- prefix
            ("app-gnome-org.example.App-42.socket", nil),          // not a scope, slice or service
            ("app-gnome-org.example.App-4!2.scope", nil),          // RANDOM must be alphanumeric
            ("app-gnome-org.exa\\x2mple.App-1.scope", nil),        // malformed escape
            ("app-.scope", nil),
            ("app-@.service", nil),
        ]
        for (unit, expected) in cases {
            XCTAssertEqual(SystemdUnit.appID(unitName: unit)?.rawValue, expected, unit)
        }
        // The id itself may hold '-': only the text after the last '-' is RANDOM.
        XCTAssertEqual(SystemdUnit.appID(unitName: "app-org.example.Reminders-4-2.scope")?.rawValue,
                       "org.example.Reminders-4")
    }

    /// `SystemdUnit.escape` is systemd-escape's: compared with the real tool, and read back by `appID`.
    func testEscape_isSystemdEscapes_andRoundTrips() throws {
        for id in ["org.example.my-app", "org.example.Reminders", "org.gnome.Evolution-alarm-notify", "org.x_y.Z9"] {
            let unit = "app-schedd-" + SystemdUnit.escape(id) + "@0123abcd.service"
            XCTAssertEqual(SystemdUnit.appID(unitName: unit)?.rawValue, id, unit)
            let tool = Process()
            tool.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-escape")
            tool.arguments = ["--", id]
            let out = Pipe()
            tool.standardOutput = out
            try tool.run()
            tool.waitUntilExit()
            let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            XCTAssertEqual(SystemdUnit.escape(id), text.trimmingCharacters(in: .whitespacesAndNewlines), id)
        }
    }

    func testUserUnitFromCgroupFile() {
        let unified = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.gnome.Epiphany-182352.scope\n"
        XCTAssertEqual(SystemdUnit.userUnit(cgroupFile: unified), "app-gnome-org.gnome.Epiphany-182352.scope")
        // Nested below the unit (a process in a sub-cgroup of its scope): still the scope.
        let nested = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/app-org.x.Y@a1.service/worker\n"
        XCTAssertEqual(SystemdUnit.userUnit(cgroupFile: nested), "app-org.x.Y@a1.service")
        // Hybrid: the unified line says nothing, the name=systemd line does.
        let hybrid = """
        12:memory:/user.slice
        1:name=systemd:/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-org.a.B-9.scope
        0::/
        """
        XCTAssertEqual(SystemdUnit.userUnit(cgroupFile: hybrid), "app-gnome-org.a.B-9.scope")
        // A system service and a terminal session: no user unit.
        XCTAssertNil(SystemdUnit.userUnit(cgroupFile: "0::/system.slice/app-org.a.B.service\n"))
        XCTAssertNil(SystemdUnit.userUnit(cgroupFile: "0::/user.slice/user-1000.slice/session-3.scope\n"))
        XCTAssertNil(SystemdUnit.userUnit(cgroupFile: "0::/\n"))
        XCTAssertNil(SystemdUnit.userUnit(cgroupFile: ""))
        XCTAssertNil(SystemdUnit.userUnit(cgroupFile: "garbage\n\n:::\n"))
        // The path may hold ':'.
        XCTAssertEqual(SystemdUnit.userUnit(cgroupFile: "0::/user.slice/user@0.service/app.slice/app-a:b.scope"),
                       "app-a:b.scope")
    }
}
