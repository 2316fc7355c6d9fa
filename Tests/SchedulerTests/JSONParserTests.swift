import XCTest
@testable import Scheduler

/// Strict RFC 8259 parsing: a JSONTestSuite-style corpus of documents that must parse (with their
/// values) and must not (with the error kind and byte offset).
final class JSONParserTests: XCTestCase {
    private func parse(_ bytes: [UInt8], maxDepth: Int = 64) -> Result<JSONValue, JSONError> {
        do throws(JSONError) { return .success(try JSONValue.parse(bytes, maxDepth: maxDepth)) } catch { return .failure(error) }
    }

    private func parse(_ text: String) -> Result<JSONValue, JSONError> { parse(Array(text.utf8)) }

    func testValidDocumentsParseToTheirValues() throws {
        let cases: [(String, JSONValue)] = [
            ("[]", .array([])),
            ("{}", .object([])),
            (" \t\r\n[ ] ", .array([])),
            ("123", .number("123")),
            ("\"s\"", .string("s")),
            ("true", .bool(true)),
            ("false", .bool(false)),
            ("null", .null),
            ("[-0]", .array([.number("-0")])),
            ("[1E22]", .array([.number("1E22")])),
            ("[1e-1, 0.5, -1.2e+3, 0e0]", .array([.number("1e-1"), .number("0.5"), .number("-1.2e+3"), .number("0e0")])),
            ("[123456789012345678901234567890]", .array([.number("123456789012345678901234567890")])),
            ("{\"a\":[{\"b\":null}],\"c\":{}}",
             .object([JSONMember("a", .array([.object([JSONMember("b", .null)])])), JSONMember("c", .object([]))])),
            ("[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]", .array([.string("\"\\/\u{8}\u{C}\n\r\t")])),
            ("[\"\\u0000\"]", .array([.string("\u{0}")])),
            ("[\"\\u00e9\\u00E9\"]", .array([.string("éé")])),
            ("[\"\\uD834\\uDD1E\"]", .array([.string("𝄞")])),
            ("[\"\\uFFFF\"]", .array([.string("\u{FFFF}")])),
            ("[\"é😀\u{7F}\"]", .array([.string("é😀\u{7F}")])),
            ("[\"a\\nb\", \"plain\"]", .array([.string("a\nb"), .string("plain")])),
            // Duplicate keys are kept, in order; PushDecoder rejects them where it matters.
            ("{\"a\":1,\"a\":2}", .object([JSONMember("a", .number("1")), JSONMember("a", .number("2"))])),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(try parse(text).get(), expected, text)
        }
        // U+10FFFF, the largest scalar, written raw.
        XCTAssertEqual(try parse([0x22, 0xF4, 0x8F, 0xBF, 0xBF, 0x22]).get(), .string("\u{10FFFF}"))
    }

    func testInvalidDocumentsAreRejectedWithKindAndOffset() {
        let q = UInt8(ascii: "\"")
        let cases: [([UInt8], JSONError.Kind, Int)] = [
            (Array("".utf8), .unexpectedEnd, 0),
            (Array("  ".utf8), .unexpectedEnd, 2),
            (Array("[".utf8), .unexpectedEnd, 1),
            (Array("]".utf8), .unexpectedByte(UInt8(ascii: "]"), expected: "a value"), 0),
            (Array("[1,]".utf8), .unexpectedByte(UInt8(ascii: "]"), expected: "a value"), 3),
            (Array("[,1]".utf8), .unexpectedByte(UInt8(ascii: ","), expected: "a value"), 1),
            (Array("{\"a\":1,}".utf8), .unexpectedByte(UInt8(ascii: "}"), expected: "a string key"), 7),
            (Array("{a:1}".utf8), .unexpectedByte(UInt8(ascii: "a"), expected: "a string key"), 1),
            (Array("{'a':1}".utf8), .unexpectedByte(UInt8(ascii: "'"), expected: "a string key"), 1),
            (Array("{\"a\" 1}".utf8), .unexpectedByte(UInt8(ascii: "1"), expected: "':'"), 5),
            (Array("{\"a\":}".utf8), .unexpectedByte(UInt8(ascii: "}"), expected: "a value"), 5),
            (Array("[\"a\" \"b\"]".utf8), .unexpectedByte(q, expected: "',' or ']'"), 5),
            (Array("[1 2]".utf8), .unexpectedByte(UInt8(ascii: "2"), expected: "',' or ']'"), 3),
            (Array("{\"a\":1 \"b\":2}".utf8), .unexpectedByte(q, expected: "',' or '}'"), 7),
            (Array("[01]".utf8), .invalidNumber, 2),
            (Array("[-]".utf8), .unexpectedByte(UInt8(ascii: "]"), expected: "a digit"), 2),
            (Array("[1.]".utf8), .unexpectedByte(UInt8(ascii: "]"), expected: "a digit"), 3),
            (Array("[.5]".utf8), .unexpectedByte(UInt8(ascii: "."), expected: "a value"), 1),
            (Array("[1e]".utf8), .unexpectedByte(UInt8(ascii: "]"), expected: "a digit"), 3),
            (Array("[1e+]".utf8), .unexpectedByte(UInt8(ascii: "]"), expected: "a digit"), 4),
            (Array("[+1]".utf8), .unexpectedByte(UInt8(ascii: "+"), expected: "a value"), 1),
            (Array("[1.5.2]".utf8), .invalidNumber, 4),
            (Array("[0x10]".utf8), .unexpectedByte(UInt8(ascii: "x"), expected: "',' or ']'"), 2),
            (Array("[-01]".utf8), .invalidNumber, 3),
            (Array("[NaN]".utf8), .unexpectedByte(UInt8(ascii: "N"), expected: "a value"), 1),
            (Array("[Infinity]".utf8), .unexpectedByte(UInt8(ascii: "I"), expected: "a value"), 1),
            (Array("[-Infinity]".utf8), .unexpectedByte(UInt8(ascii: "I"), expected: "a digit"), 2),
            (Array("[tru]".utf8), .unexpectedByte(UInt8(ascii: "t"), expected: "a value"), 1),
            (Array("[True]".utf8), .unexpectedByte(UInt8(ascii: "T"), expected: "a value"), 1),
            (Array("[nul".utf8), .unexpectedEnd, 4),
            (Array("[\"a]".utf8), .unexpectedEnd, 4),
            (Array("[\"\\x\"]".utf8), .invalidEscape, 2),
            (Array("[\"\\u12\"]".utf8), .invalidEscape, 2),
            (Array("[\"\\u12G4\"]".utf8), .invalidEscape, 2),
            (Array("[\"\\uD800\"]".utf8), .loneSurrogate, 2),
            (Array("[\"\\uDC00\"]".utf8), .loneSurrogate, 2),
            (Array("[\"\\uD800\\uD800\"]".utf8), .loneSurrogate, 2),
            (Array("[\"\\uD800x\"]".utf8), .loneSurrogate, 2),
            (Array("[\"\\uD800\\n\"]".utf8), .loneSurrogate, 2),
            (Array("[\"a\tb\"]".utf8), .controlCharacter(0x09), 3),
            (Array("[\"a\nb\"]".utf8), .controlCharacter(0x0A), 3),
            ([0x5B, q, 0x00, q, 0x5D], .controlCharacter(0x00), 2),
            (Array("[1] x".utf8), .trailingData, 4),
            (Array("[1]]".utf8), .trailingData, 3),
            (Array("{}{}".utf8), .trailingData, 2),
            (Array("1 2".utf8), .trailingData, 2),
            ([0xEF, 0xBB, 0xBF] + Array("{}".utf8), .unexpectedByte(0xEF, expected: "a value"), 0),
            (Array("/* c */ []".utf8), .unexpectedByte(UInt8(ascii: "/"), expected: "a value"), 0),
            (Array("[1,//\n2]".utf8), .unexpectedByte(UInt8(ascii: "/"), expected: "a value"), 3),
            (Array("[é]".utf8), .unexpectedByte(0xC3, expected: "a value"), 1),
            (Array("[1]".utf8) + [0], .trailingData, 3),
            (Array("[\u{C}]".utf8), .unexpectedByte(0x0C, expected: "a value"), 1),
            // Ill-formed UTF-8 (Unicode Table 3-7), offset = the sequence's first byte.
            ([0x5B, q, 0xC0, 0x80, q, 0x5D], .invalidUTF8, 2),              // overlong NUL
            ([0x5B, q, 0xC1, 0xBF, q, 0x5D], .invalidUTF8, 2),              // overlong 0x7F
            ([0x5B, q, 0xE0, 0x80, 0x80, q, 0x5D], .invalidUTF8, 2),        // overlong 3-byte
            ([0x5B, q, 0xF0, 0x80, 0x80, 0x80, q, 0x5D], .invalidUTF8, 2),  // overlong 4-byte
            ([0x5B, q, 0xED, 0xA0, 0x80, q, 0x5D], .invalidUTF8, 2),        // encoded U+D800
            ([0x5B, q, 0xED, 0xBF, 0xBF, q, 0x5D], .invalidUTF8, 2),        // encoded U+DFFF
            ([0x5B, q, 0xF4, 0x90, 0x80, 0x80, q, 0x5D], .invalidUTF8, 2),  // U+110000
            ([0x5B, q, 0xF5, 0x80, 0x80, 0x80, q, 0x5D], .invalidUTF8, 2),
            ([0x5B, q, 0xFF, q, 0x5D], .invalidUTF8, 2),
            ([0x5B, q, 0x61, 0x80, q, 0x5D], .invalidUTF8, 3),              // lone continuation
            ([0x5B, q, 0xE2, 0x82, q, 0x5D], .invalidUTF8, 2),              // truncated €
            ([0x5B, q, 0xC3, q, 0x5D], .invalidUTF8, 2),
            ([0x5B, q, 0xE2, 0x82], .invalidUTF8, 2),                       // truncated at the end
            ([q, 0xF0, 0x9F, 0x98], .invalidUTF8, 1),
            ([0x5B, q, 0x5C, 0x6E, 0xC0, 0xAF, q, 0x5D], .invalidUTF8, 4),  // after an escape
        ]
        for (bytes, kind, offset) in cases {
            let shown = String(decoding: bytes, as: UTF8.self).debugDescription
            switch parse(bytes) {
            case .success(let v): XCTFail("\(shown) parsed as \(v)")
            case .failure(let e):
                XCTAssertEqual(e.kind, kind, shown)
                XCTAssertEqual(e.offset, offset, shown)
            }
        }
    }

    func testErrorDescriptionNamesOffsetAndRule() {
        guard case .failure(let e) = parse("{\"a\":\"x\ny\"}") else { return XCTFail("parsed") }
        XCTAssertEqual(e.description, "invalid JSON at byte 7: control character 0x0A in string")
        guard case .failure(let e2) = parse("[1,]") else { return XCTFail("parsed") }
        XCTAssertEqual(e2.description, "invalid JSON at byte 3: unexpected ']', expected a value")
    }

    func testDepthLimitIsExactAndDeepInputDoesNotRecurse() throws {
        func nested(_ n: Int) -> [UInt8] { Array(repeating: UInt8(ascii: "["), count: n) + Array(repeating: UInt8(ascii: "]"), count: n) }
        XCTAssertNoThrow(try parse(nested(64)).get())
        XCTAssertEqual(try? parse(nested(3), maxDepth: 3).get(), .array([.array([.array([])])]))
        guard case .failure(let e) = parse(nested(65)) else { return XCTFail("65 levels parsed") }
        XCTAssertEqual(e.kind, .tooDeep(limit: 64))
        XCTAssertEqual(e.offset, 64)
        guard case .failure(let e0) = parse(Array("{}".utf8), maxDepth: 0) else { return XCTFail("parsed") }
        XCTAssertEqual(e0.kind, .tooDeep(limit: 0))
        XCTAssertEqual(try parse(Array("7".utf8), maxDepth: 0).get(), .number("7"))
        // A million levels, a million unclosed levels, and mixed objects: errors, never a stack overflow.
        guard case .failure(let big) = parse(nested(1_000_000), maxDepth: .max) else { return XCTFail("parsed") }
        XCTAssertEqual(big.kind, .tooDeep(limit: JSONValue.maxSupportedDepth))
        let unclosed = Array(repeating: UInt8(ascii: "["), count: 500)
        guard case .failure(let open) = parse(unclosed, maxDepth: 600) else { return XCTFail("parsed") }
        XCTAssertEqual(open.kind, .unexpectedEnd)
        XCTAssertEqual(open.offset, 500)
        let objects = Array(String(repeating: "{\"a\":", count: 200_000).utf8)
        guard case .failure(let deepObjects) = parse(objects) else { return XCTFail("parsed") }
        XCTAssertEqual(deepObjects.kind, .tooDeep(limit: 64))
        XCTAssertEqual(deepObjects.offset, 64 * 5)
        // The deepest value accepted can be compared, serialized and released without exhausting the stack.
        let deepest = try parse(nested(JSONValue.maxSupportedDepth), maxDepth: .max).get()
        XCTAssertEqual(deepest, deepest)
        XCTAssertEqual(deepest.serialized().utf8.count, 2 * JSONValue.maxSupportedDepth)
    }

    func testLongFlatContainers() throws {
        // 200,000 elements: finishes only if appending to an open container is amortised O(1).
        let n = 200_000
        let array = Array(("[" + Array(repeating: "0", count: n).joined(separator: ",") + "]").utf8)
        guard case .array(let items) = try JSONValue.parse(array) else { return XCTFail("not an array") }
        XCTAssertEqual(items.count, n)
        let object = Array(("{" + (0..<n).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}").utf8)
        guard case .object(let members) = try JSONValue.parse(object) else { return XCTFail("not an object") }
        XCTAssertEqual(members.count, n)
        XCTAssertEqual(members.last, JSONMember("k\(n - 1)", .number(String(n - 1))))
    }

    func testAnyCollectionOfBytesAndStrings() throws {
        let text = "{\"k\":[true,\"é\"]}"
        let expected = JSONValue.object([JSONMember("k", .array([.bool(true), .string("é")]))])
        XCTAssertEqual(try JSONValue.parse(text), expected)
        XCTAssertEqual(try JSONValue.parse(Array(text.utf8)[...]), expected)
        XCTAssertEqual(try JSONValue.parse(text.utf8.lazy.map { $0 }), expected)  // not contiguous
        let padded = Array(("xx" + text + "yy").utf8)
        XCTAssertEqual(try JSONValue.parse(padded[2..<(padded.count - 2)]), expected)
    }
}
