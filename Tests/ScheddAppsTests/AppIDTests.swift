import XCTest
@testable import ScheddApps

final class AppIDTests: XCTestCase {
    func testValidIDs() throws {
        for text in ["org.gnome.Epiphany", "com.obsproject.Studio", "org.example.My_App-2", "a.b", "_x.y",
                     "org.schedd.Default", String(repeating: "a", count: 125) + "." + String(repeating: "b", count: 129)] {
            XCTAssertEqual(try AppID(validating: text).rawValue, text)
        }
    }

    func testInvalidIDs_nameTheRule() {
        let cases: [(String, String)] = [
            ("", "must not be empty"),
            ("example", "needs at least two elements"),
            ("org..example", "empty element"),
            (".org.example", "empty element"),
            ("org.example.", "empty element"),
            ("org.9lives", "starting with a digit"),
            ("org.ex ample", "may hold only"),
            (":1.42", "may hold only"),
            ("org.exämple", "may hold only"),
            ("org/example", "may hold only"),
            (String(repeating: "a.", count: 128) + "a", "longer than 255 bytes"),
        ]
        for (text, rule) in cases {
            XCTAssertThrowsError(try AppID(validating: text), text) { error in
                let message = (error as? AppIDError)?.description ?? ""
                XCTAssertTrue(message.contains(rule), "\(text): \(message)")
                XCTAssertTrue(message.hasPrefix("app id \""), message)
            }
        }
    }

    func testErrorQuotesControlCharacters() {
        XCTAssertEqual(AppIDError("a\nb", "x").description, #"app id "a\u{a}b" x"#)
    }

    func testDefaultAppIsValid() {
        XCTAssertTrue(AppID.isValid(AppID.defaultApp.rawValue))
    }
}
