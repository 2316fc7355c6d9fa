import SeededRandomness
import XCTest
@testable import Scheduler

/// parse → serialize → parse is the identity; the serializer's output is a fixed point; random
/// corruptions of valid documents never trap and, when they still parse, round-trip too.
final class JSONRoundTripTests: XCTestCase {
    private func randomString(_ rng: inout SplitMix64) -> String {
        let pool: [Unicode.Scalar] = ["a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é",
                                      "\u{2028}", "€", "\u{FFFF}", "😀", "\u{10FFFF}", "ß"]
        var s = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...8, using: &rng) { s.append(pool.randomElement(using: &rng)!) }
        return String(s)
    }

    private func randomNumber(_ rng: inout SplitMix64) -> String {
        let forms = ["0", "-0", "7", "-12", "3.25", "1e9", "-2.5E-3", "123456789012345678901234567890", "0.000001"]
        return forms.randomElement(using: &rng)!
    }

    private func randomValue(_ rng: inout SplitMix64, depth: Int) -> JSONValue {
        let choice = Int.random(in: 0..<(depth > 5 ? 5 : 7), using: &rng)
        switch choice {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .number(randomNumber(&rng))
        case 3, 4: return .string(randomString(&rng))
        case 5: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) })
        default:
            return .object((0..<Int.random(in: 0...4, using: &rng)).map { _ in
                JSONMember(randomString(&rng), randomValue(&rng, depth: depth + 1))
            })
        }
    }

    func testRandomValuesSurviveSerializeThenParse() throws {
        var rng = SplitMix64(seed: 0x5EED_0001)
        for _ in 0..<3_000 {
            let value = randomValue(&rng, depth: 0)
            let text = value.serialized()
            XCTAssertEqual(try JSONValue.parse(text), value, text)
            let sorted = value.serialized(sortedKeys: true)
            XCTAssertEqual(try JSONValue.parse(sorted).serialized(sortedKeys: true), sorted)
        }
    }

    /// The writer (one frame per open container, insertion-sorted keys) against a plain recursive
    /// reference of the same rules: keys by UTF-8 bytes, equal keys in document order, compact. Objects of
    /// up to 20 members, so both sort paths run; duplicate keys included. The canonical sorted form is what
    /// push digests are computed from, so it must never change.
    func testWriterMatchesARecursiveReference() throws {
        func reference(_ v: JSONValue, sorted: Bool) -> String {
            switch v {
            case .null: return "null"
            case .bool(let b): return b ? "true" : "false"
            case .number(let n): return n
            case .string(let s): return JSONValue.string(s).serialized()
            case .array(let items): return "[" + items.map { reference($0, sorted: sorted) }.joined(separator: ",") + "]"
            case .object(let members):
                var ordered = Array(members.enumerated())
                if sorted {
                    ordered.sort { a, b in
                        a.element.key.utf8.elementsEqual(b.element.key.utf8)
                            ? a.offset < b.offset : a.element.key.utf8.lexicographicallyPrecedes(b.element.key.utf8)
                    }
                }
                return "{" + ordered.map { JSONValue.string($0.element.key).serialized() + ":" + reference($0.element.value, sorted: sorted) }
                    .joined(separator: ",") + "}"
            }
        }
        var rng = SplitMix64(seed: 0x5EED_0002)
        for _ in 0..<2_000 {
            var value = randomValue(&rng, depth: 0)
            if Bool.random(using: &rng) {
                let keys = ["b", "a", "é", "ﬀ", "𝄞", "A", "", "ab"]
                value = .object((0..<Int.random(in: 0...20, using: &rng)).map { _ in
                    JSONMember(keys.randomElement(using: &rng)!, randomValue(&rng, depth: 3))
                })
            }
            XCTAssertEqual(value.serialized(), reference(value, sorted: false))
            XCTAssertEqual(value.serialized(sortedKeys: true), reference(value, sorted: true))
        }
    }

    func testCorpusDocumentsAreFixedPointsAfterOneRoundTrip() throws {
        let corpus = [
            "{ \"b\" : [1, 2.50, -0, 1E+2] , \"a\" : {\"x\":\"\\u00e9\\ud83d\\ude00\\/\"} }",
            "[null,true,false,\"\\u0001\\u007f\\u2028\\b\\f\"]",
            "\"\\\"quoted\\\" \\\\ back\"",
            "[[[[[]]]],{},{\"\":\"\"}]",
            "{\"a\":1,\"a\":2}",
        ]
        for text in corpus {
            let once = try JSONValue.parse(text)
            let serialized = once.serialized()
            let twice = try JSONValue.parse(serialized)
            XCTAssertEqual(twice, once, text)
            XCTAssertEqual(twice.serialized(), serialized, text)
        }
        XCTAssertEqual(try JSONValue.parse("{ \"b\": [1, 2.50], \"a\": null }").serialized(sortedKeys: true),
                       "{\"a\":null,\"b\":[1,2.50]}")
    }

    func testMutatedDocumentsNeverTrap() {
        var rng = SplitMix64(seed: 0x5EED_0002)
        let seeds = [
            "{\"bk\":{\"local\":{\"id\":\"run_1:a\",\"at\":\"2026-03-01T10:00\",\"title\":\"Hi é😀\",\"data\":{\"k\":[1,2.5e3,null]}}}}",
            "[\"\\uD834\\uDD1E\", -0.5e-7, {\"\":[true,false]}]",
        ]
        let interesting: [UInt8] = [0x00, 0x22, 0x5C, 0x75, 0x7B, 0x7D, 0x5B, 0x5D, 0x2C, 0x3A, 0x80, 0xBF, 0xC0,
                                    0xE0, 0xED, 0xF0, 0xF4, 0xFF, 0x30, 0x2D, 0x65, 0x2E, 0x20, 0x0A]
        var parsed = 0
        for i in 0..<20_000 {
            var bytes = Array(seeds[i % seeds.count].utf8)
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: bytes[at] = interesting.randomElement(using: &rng)!
                case 1: bytes.remove(at: at)
                case 2: bytes.insert(interesting.randomElement(using: &rng)!, at: at)
                default: bytes[at] = UInt8.random(in: 0...255, using: &rng)
                }
                if bytes.isEmpty { bytes = [0x5B] }
            }
            if let value = try? JSONValue.parse(bytes) {
                parsed += 1
                XCTAssertEqual(try? JSONValue.parse(value.serialized()), value)
                XCTAssertLessThanOrEqual(value.serialized().utf8.count, bytes.count, "compact is never longer")
                // Whatever parsed was valid UTF-8: the strings decode losslessly.
                XCTAssertFalse(value.serialized().unicodeScalars.contains("\u{FFFD}"))
            }
        }
        XCTAssertGreaterThan(parsed, 0)
    }
}
