import XCTest
@testable import ScheddApps

final class FlatpakInfoTests: XCTestCase {
    /// As Flatpak 1.14 writes it.
    static let real = """
    [Application]
    name=org.example.Reminders
    runtime=runtime/org.gnome.Platform/x86_64/46

    [Instance]
    instance-id=2281735236
    instance-path=/home/u/.var/app/org.example.Reminders
    app-path=/var/lib/flatpak/app/org.example.Reminders/x86_64/stable/abc/files
    branch=stable
    arch=x86_64
    flatpak-version=1.14.4
    session-bus-proxy=true

    [Context]
    shared=network;ipc;

    [Session Bus Policy]
    org.schedd.Scheduler1=talk
    """

    func testReadsNameAndInstance() throws {
        let info = try FlatpakInfo(bytes: Array(Self.real.utf8))
        XCTAssertEqual(info.appID.rawValue, "org.example.Reminders")
        XCTAssertEqual(info.instanceID, "2281735236")
    }

    func testRefusesWhatNamesNoApp() {
        let cases: [(String, String)] = [
            ("", "has no [Application] name"),
            ("[Runtime]\nruntime=runtime/org.gnome.Platform/x86_64/46\n", "has no [Application] name"),
            ("[Application]\nname=\n", "has no [Application] name"),
            ("[Application]\nname=Reminders\n", "needs at least two elements"),
            ("[Instance]\nname=org.a.B\n", "has no [Application] name"),
        ]
        for (text, rule) in cases {
            XCTAssertThrowsError(try FlatpakInfo(bytes: Array(text.utf8))) { error in
                let message = (error as? FlatpakInfoError)?.description ?? ""
                XCTAssertTrue(message.hasPrefix(".flatpak-info "), message)
                XCTAssertTrue(message.contains(rule), "\(text): \(message)")
            }
        }
        XCTAssertThrowsError(try FlatpakInfo(bytes: [UInt8](repeating: 0x41, count: KeyFile.maxBytes + 1)))
    }
}
