import XCTest
@testable import ScheddApps

final class KeyFileTests: XCTestCase {
    func testGroupsKeysEscapesAndLocales() {
        let text = """
        # comment
        ignored=before any group
        [Desktop Entry]
        Name = Reminders
        Name[de]=Erinnerungen
        Name[de_CH]=Erinnerige
        Name[sr@latin]=Podsetnici
        Comment=two\\slines\\nhere \\\\ and \\q
        Hidden=true
        NoDisplay=yes
        Name=Second Name Is Ignored
        [Other]\r
        Key=Value\r
        """
        let file = KeyFile(bytes: Array(text.utf8))
        XCTAssertEqual(file.string("Name", in: "Desktop Entry"), "Reminders")
        XCTAssertNil(file.raw("ignored", in: "Desktop Entry"))
        XCTAssertEqual(file.string("Comment", in: "Desktop Entry"), "two lines\nhere \\ and \\q")
        XCTAssertEqual(file.bool("Hidden", in: "Desktop Entry"), true)
        XCTAssertNil(file.bool("NoDisplay", in: "Desktop Entry"), "only true/false are booleans")
        XCTAssertEqual(file.string("Key", in: "Other"), "Value")
        XCTAssertEqual(file.localizedString("Name", in: "Desktop Entry", locale: "de_DE.UTF-8"), "Erinnerungen")
        XCTAssertEqual(file.localizedString("Name", in: "Desktop Entry", locale: "de_CH.UTF-8"), "Erinnerige")
        XCTAssertEqual(file.localizedString("Name", in: "Desktop Entry", locale: "sr_RS@latin"), "Podsetnici")
        XCTAssertEqual(file.localizedString("Name", in: "Desktop Entry", locale: "fr_FR"), "Reminders")
        XCTAssertEqual(file.localizedString("Name", in: "Desktop Entry", locale: "C"), "Reminders")
        XCTAssertEqual(file.localizedString("Name", in: "Desktop Entry", locale: nil), "Reminders")
    }

    func testLocaleCandidates() {
        XCTAssertEqual(KeyFile.localeCandidates("de_DE.UTF-8@euro"), ["de_DE@euro", "de_DE", "de@euro", "de"])
        XCTAssertEqual(KeyFile.localeCandidates("pt"), ["pt"])
        XCTAssertEqual(KeyFile.localeCandidates("POSIX"), [])
    }

    func testInvalidUTF8AndJunkNeverTrap() {
        var bytes: [UInt8] = Array("[Application]\nname=org.a.B\n".utf8)
        bytes += [0xFF, 0xFE, 0x0A, 0x5B, 0x0A, 0x3D, 0x3D, 0x0A]
        let file = KeyFile(bytes: bytes)
        XCTAssertEqual(file.string("name", in: "Application"), "org.a.B")
    }
}
