import Foundation
import Glibc
import XCTest
import TestPrerequisites

/// Kiosk mode's own access rule (`schedd run --allow-group`, the default with `--bus system`): on a
/// system-like bus whose policy lets everyone call everything, the daemon itself serves only root and
/// members of the group, and refuses everyone else with org.freedesktop.DBus.Error.AccessDenied.
///
/// Needs root (to create the group and the caller, and to switch to the caller with setpriv).
final class SystemBusAccessTests: XCTestCase {
    static let groupName = "schedd-test"
    static let userName = "schedd-test-caller"
    /// A user that the group database lists as a member of the test group.
    static let memberName = "schedd-test-member"

    func testAllowGroup_servesRootAndGroupMembers_refusesOthersWithAccessDenied() throws {
        try requirePrerequisite(geteuid() == 0, "needs root: creates a group and a user, runs the CLI as that user")
        let groupID = try Self.ensureGroup()
        let userID = try Self.ensureUser()
        let outsiderGroup: gid_t = 65534 // nogroup: neither root's group nor the allowed one
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z",
                                  notifierArguments: ["--notifier", "stdout", "--allow-group", Self.groupName],
                                  busConfig: Build.supportFile("bus/system-like-bus.conf"))
        defer { h.tearDown() }
        let bin = try TemporaryDirectory()
        defer { bin.remove() }
        let schedd = try Self.worldRunnableCopy(of: Build.schedd, in: bin)

        // Root is served.
        XCTAssertEqual(try h.push(localPush(id: "root:a", at: "2026-03-09T09:00")).first?["status"] as? String, "scheduled")

        // A caller outside the group is refused by the daemon (the bus lets it through), and nothing it
        // sent takes effect.
        let outsider = ["--reuid=\(userID)", "--regid=\(outsiderGroup)", "--clear-groups"]
        let refused = try runProcess("/usr/bin/setpriv", outsider + [schedd, "push", "-", "--bus", h.bus.address],
                                     stdin: localPush(id: "outsider:a", at: "2026-03-09T09:00"))
        XCTAssertEqual(refused.status, 3, refused.stdout + refused.stderr)
        XCTAssertTrue(refused.stderr.contains("access denied"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("caller uid \(userID) is not root and not in group '\(Self.groupName)'"),
                      refused.stderr)
        XCTAssertEqual(try h.list().compactMap { $0["id"] as? String }, ["root:a"])

        // The D-Bus error is the standard AccessDenied, and introspection stays open to everyone.
        let python = try runProcess("/usr/bin/setpriv", outsider + ["/usr/bin/python3", "-c", Self.probe, h.bus.address])
        XCTAssertEqual(python.status, 0, python.stderr)
        XCTAssertEqual(python.lines, ["introspect ok", "org.freedesktop.DBus.Error.AccessDenied"], python.stderr)

        // Groups the process merely carries do not count (they are not in the group database for its
        // uid): the outsider with the group as a supplementary and as its effective group is refused.
        for carried in [["--reuid=\(userID)", "--regid=\(outsiderGroup)", "--groups=\(groupID)"],
                        ["--reuid=\(userID)", "--regid=\(groupID)", "--clear-groups"]] {
            let result = try runProcess("/usr/bin/setpriv", carried + [schedd, "list", "--json", "--bus", h.bus.address])
            XCTAssertEqual(result.status, 3, "\(carried): \(result.stdout)")
            XCTAssertTrue(result.stderr.contains("access denied"), result.stderr)
        }

        // A member per the group database is served, whatever groups its process carries.
        let memberID = try Self.ensureUser(Self.memberName, supplementaryGroup: Self.groupName)
        let member = ["--reuid=\(memberID)", "--regid=\(outsiderGroup)", "--clear-groups"]
        let pushed = try runProcess("/usr/bin/setpriv", member + [schedd, "push", "-", "--bus", h.bus.address],
                                    stdin: localPush(id: "member:a", at: "2026-03-09T10:00"))
        XCTAssertEqual(pushed.status, 0, pushed.stdout + pushed.stderr)
        let listed = try runProcess("/usr/bin/setpriv", member + [schedd, "list", "--json", "--bus", h.bus.address])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        let ids = (try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])?
            .compactMap { $0["id"] as? String }
        XCTAssertEqual(ids, ["member:a"], "each user has a namespace of its own (CONTRACT §8 v3): root's is not listed")
        // The first refusal of the outsider is logged (later ones are rate-limited per uid); which
        // method it was depends on the CLI (a human-output push asks ClockShow for the zone first).
        XCTAssertTrue(h.daemonStderr.contains("refused ") && h.daemonStderr.contains("caller uid \(userID) is not root"),
                      h.daemonStderr)
    }

    func testAllowGroup_unknownGroup_isAStartupError() throws {
        let bus = try TestBus()
        defer { bus.stop() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try runProcess(Build.schedd, ["run", "--bus", bus.address, "--db", directory.file("db"),
                                                   "--notifier", "none", "--allow-group", "schedd-no-such-group"])
        XCTAssertEqual(result.status, 3, result.stderr)
        XCTAssertTrue(result.stderr.contains("no group 'schedd-no-such-group'"), result.stderr)
    }

    /// Calls Introspect, then List, as whoever runs it; prints what happened.
    static let probe = """
        import sys, dbus
        bus = dbus.bus.BusConnection(sys.argv[1])
        o = bus.get_object("org.schedd.Scheduler1", "/org/schedd/Scheduler1")
        o.Introspect(dbus_interface="org.freedesktop.DBus.Introspectable")
        print("introspect ok")
        try:
            o.List(dbus.UInt32(0), dbus.UInt32(0), dbus_interface="org.schedd.Scheduler1")
            print("list served")
        except dbus.exceptions.DBusException as e:
            print(e.get_dbus_name())
        """

    /// The gid of the test group, created with groupadd when missing.
    static func ensureGroup() throws -> gid_t {
        if let gid = getgrnam(groupName)?.pointee.gr_gid { return gid }
        let made = try runProcess("/usr/sbin/groupadd", ["--system", groupName])
        guard let gid = getgrnam(groupName)?.pointee.gr_gid else {
            throw TestSetupError("groupadd \(groupName) failed: \(made.stderr)")
        }
        return gid
    }

    /// The uid of a test user (no home, no login; `userName` is in no test group, a user given
    /// `supplementaryGroup` is listed in it), created when missing.
    static func ensureUser(_ name: String = userName, supplementaryGroup: String? = nil) throws -> uid_t {
        if let uid = getpwnam(name)?.pointee.pw_uid { return uid }
        let made = try runProcess("/usr/sbin/useradd", ["--system", "-M", "-N", "-s", "/usr/sbin/nologin"]
                                  + (supplementaryGroup.map { ["-G", $0] } ?? []) + [name])
        guard let uid = getpwnam(name)?.pointee.pw_uid else {
            throw TestSetupError("useradd \(name) failed: \(made.stderr)")
        }
        return uid
    }

    /// Copies `executable` into `directory`, both readable and runnable by every user (the build
    /// directory may sit under a home only root can enter).
    static func worldRunnableCopy(of executable: String, in directory: TemporaryDirectory) throws -> String {
        let target = directory.file("schedd")
        try FileManager.default.copyItem(atPath: executable, toPath: target)
        chmod(directory.path, 0o755)
        chmod(target, 0o755)
        return target
    }
}
