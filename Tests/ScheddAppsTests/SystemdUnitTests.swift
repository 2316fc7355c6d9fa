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
