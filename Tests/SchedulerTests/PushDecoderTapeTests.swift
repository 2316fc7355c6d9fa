import SeededRandomness
import SystemZones
import XCTest
@testable import Scheduler

/// The decoder reads pushes from a `JSONTape` (member names compared as bytes, `data` and the fingerprint
/// written from the raw bytes). These tests hold it to what the `JSONValue` tree gave before: the same
/// fingerprint bytes (so stored digests still match), the same `data` text, the same duplicate-name rule
/// (Swift string equality, canonical equivalence included) and the same errors.
final class PushDecoderTapeTests: XCTestCase {
    private func decode(_ json: String) -> Result<Push, PushError> {
        do throws(PushError) {
            return .success(try PushDecoder.decode(Array(json.utf8), zones: ZoneDatabase.shared))
        } catch {
            return .failure(error)
        }
    }

    // MARK: The reference: what the decoder did over a `JSONValue` tree

    /// The duplicate rule as it was: String `==`, pairs up to 16 members, a Set beyond.
    private func referenceDuplicate(_ members: [JSONMember]) -> String? {
        if members.count <= 16 {
            for i in members.indices {
                for j in members.startIndex..<i where members[j].key == members[i].key { return members[i].key }
            }
            return nil
        }
        var seen = Set<String>()
        for m in members where !seen.insert(m.key).inserted { return m.key }
        return nil
    }

    private func referenceDuplicateInside(_ value: JSONValue) -> String? {
        var pending = [value]
        while let v = pending.popLast() {
            switch v {
            case .array(let items): pending.append(contentsOf: items)
            case .object(let members):
                if let duplicate = referenceDuplicate(members) { return duplicate }
                for m in members { pending.append(m.value) }
            default: break
            }
        }
        return nil
    }

    // MARK: Random pushes

    /// Key spellings that collide only under canonical equivalence (`é` precomposed and decomposed, `K` and
    /// the Kelvin sign), escapes that spell plain names, and keys that need escaping when written.
    private let keyPool = [
        "a", "b", "B", "é", "e\u{301}", "K", "\u{212A}", "ﬀ", "𝄞", "q\"x", "back\\slash", "tab\t", "nl\n",
        "\u{1}", "z", "data2", "ß", "Å", "A\u{30A}", "\u{212B}", "",
    ]

    private func jsonString(_ text: String, _ rng: inout SplitMix64) -> String {
        // Sometimes escape every scalar (`\u` form, surrogate pairs beyond the BMP), else the shortest form.
        if rng.chance(0.25) {
            var out = "\""
            for unit in text.utf16 {
                let hex = String(unit, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            }
            return out + "\""
        }
        var out: [UInt8] = []
        JSONValue.writeString(text, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private func randomValue(_ rng: inout SplitMix64, depth: Int) -> String {
        let pick = depth > 3 ? rng.int(0...3) : rng.int(0...6)
        switch pick {
        case 0: return rng.pick(["true", "false", "null"])
        case 1: return rng.pick(["0", "-1", "12", "1.5e3", "-0.25", "1E-7", "123456789012345678901234567890"])
        case 2, 3: return jsonString(rng.pick(keyPool + ["text", "ünïcødé", "\u{7F}\u{80}", "/slash"]), &rng)
        case 4: return "[" + (0..<rng.int(0...4)).map { _ in randomValue(&rng, depth: depth + 1) }.joined(separator: ", ") + "]"
        default: return randomObject(&rng, depth: depth + 1)
        }
    }

    private func randomObject(_ rng: inout SplitMix64, depth: Int) -> String {
        let count = rng.chance(0.05) ? rng.int(17...24) : rng.int(0...5)
        let members = (0..<count).map { _ in
            jsonString(rng.pick(keyPool), &rng) + (rng.chance(0.3) ? " : " : ":") + randomValue(&rng, depth: depth)
        }
        return "{" + members.joined(separator: rng.chance(0.5) ? "," : " ,\n ") + "}"
    }

    func testRandomPushesDecodeAsTheTreeDid() throws {
        var rng = SplitMix64(seed: 0x7A9E_0001)
        var decoded = 0, duplicates = 0
        for round in 0..<3_000 {
            var members = [#""id": "run_1:a""#, #""at": "2026-03-01T10:00""#, #""title": "Hi""#]
            if rng.chance(0.8) { members.append(#""data": "# + randomObject(&rng, depth: 1)) }
            for _ in 0..<rng.int(0...3) {
                members.append(jsonString("x-" + rng.pick(keyPool), &rng) + ": " + randomValue(&rng, depth: 1))
            }
            if rng.chance(0.3) { members.append(#""t\u0069tle": "Hi""#) }
            if rng.chance(0.3) { members.append(#""\u0062ody": "B""#) }
            members.shuffle(using: &rng)
            let localText = "{" + members.joined(separator: ",") + "}"
            let text = #"{"bk": {"local": "# + localText + "}}"

            guard case .object(let local) = try JSONValue.parse(localText) else { return XCTFail("not an object") }
            let result = decode(text)
            if let duplicate = referenceDuplicate(local) {
                XCTAssertEqual(result.failure?.description, "bk.local: duplicate member \(PushError.quoted(duplicate))",
                               "round \(round): \(text)")
                duplicates += 1
                continue
            }
            let data = local.first { $0.key == "data" }?.value
            if let data, let duplicate = referenceDuplicateInside(data) {
                XCTAssertEqual(result.failure?.description,
                               "bk.local.data: duplicate member \(PushError.quoted(duplicate))", "round \(round): \(text)")
                duplicates += 1
                continue
            }
            guard case .success(let push) = result, let schedule = push.local else {
                XCTFail("round \(round): \(result) for \(text)")
                continue
            }
            XCTAssertEqual(schedule.fingerprint, JSONValue.object(local).serialized(sortedKeys: true), "round \(round)")
            XCTAssertEqual(schedule.digest, SHA256Reference.hex(JSONValue.object(local).serialized(sortedKeys: true)))
            XCTAssertEqual(schedule.dataJSON, data?.serialized(), "round \(round)")
            XCTAssertEqual(push.unknownMembers,
                           local.filter { !PushDecoder.localMembers.contains($0.key) }.map { "bk.local." + $0.key })
            decoded += 1
        }
        XCTAssertGreaterThan(decoded, 1_000)
        XCTAssertGreaterThan(duplicates, 100)
    }

    func testTapeWritesWhatTheTreeWrites() throws {
        var rng = SplitMix64(seed: 0x7A9E_0002)
        for round in 0..<2_000 {
            let text = rng.chance(0.5) ? randomObject(&rng, depth: 0) : randomValue(&rng, depth: 0)
            let value = try JSONValue.parse(text)
            for sorted in [false, true] {
                var expected: [UInt8] = []
                value.write(into: &expected, sortedKeys: sorted)
                let bytes = Array(text.utf8)
                let written = try bytes.withUnsafeBufferPointer { buffer throws(JSONError) -> [UInt8] in
                    let tape = try JSONTape(parsing: buffer, maxDepth: 64)
                    var out: [UInt8] = []
                    tape.write(0, into: &out, sortedKeys: sorted)
                    return out
                }
                XCTAssertEqual(String(decoding: written, as: UTF8.self), String(decoding: expected, as: UTF8.self),
                               "round \(round), sorted \(sorted): \(text)")
            }
        }
    }

    // MARK: Names

    /// The decoder looks members up by slot index: each `…Member` constant must be its name's index.
    func testMemberSlotsMatchTheirNames() {
        func check(_ names: [StaticString], _ slots: [(String, Int)]) {
            XCTAssertEqual(slots.count, names.count)
            for (name, slot) in slots { XCTAssertEqual(names[slot].description, name) }
        }
        typealias L = PushDecoder.LocalMember
        check(PushDecoder.localNames, [
            ("id", L.id), ("at", L.at), ("calendar", L.calendar), ("timeZone", L.timeZone), ("until", L.until),
            ("title", L.title), ("body", L.body), ("data", L.data), ("cancelOn", L.cancelOn),
            ("graceSeconds", L.graceSeconds), ("urgency", L.urgency), ("icon", L.icon), ("category", L.category),
            ("actions", L.actions), ("snoozeSeconds", L.snoozeSeconds), ("alarm", L.alarm), ("wake", L.wake),
        ])
        typealias B = PushDecoder.BKMember
        check(PushDecoder.bkKnown, [("local", B.local), ("cancel", B.cancel), ("messageId", B.messageId),
                                    ("deepLink", B.deepLink), ("action", B.action), ("image", B.image)])
        check(PushDecoder.cancelMembers, [("id", PushDecoder.CancelMember.id), ("run", PushDecoder.CancelMember.run)])
        check(PushDecoder.actionMembers, [("id", PushDecoder.ActionMember.id), ("title", PushDecoder.ActionMember.title)])
        check(PushDecoder.appActionMembers, [("name", PushDecoder.AppActionMember.name),
                                             ("data", PushDecoder.AppActionMember.data)])
    }

    func testEscapedNamesAreTheirText() throws {
        let push = try decode(#"{"\u0062k": {"l\u006fcal": {"\u0069d": "a", "at": "2026-03-01T10:00", "title": "T"}}}"#).get()
        XCTAssertEqual(push.local?.id, "a")
        XCTAssertEqual(decode(#"{"bk": {"local": {"id": "a", "at": "2026-03-01T10:00", "title": "T", "t\u0069tle": "U"}}}"#)
            .failure?.description, #"bk.local: duplicate member "title""#)
        XCTAssertEqual(decode(#"{"bk": {}, "\u0062k": {}}"#).failure?.description, #"push: duplicate member "bk""#)
    }

    func testCanonicallyEquivalentNamesAreDuplicates() {
        let base = #""id": "a", "at": "2026-03-01T10:00", "title": "T""#
        XCTAssertEqual(decode(#"{"bk": {"local": {\#(base), "x\u00e9": 1, "xe\u0301": 2}}}"#).failure?.description,
                       "bk.local: duplicate member \"xe\u{301}\"")
        XCTAssertEqual(decode(#"{"bk": {"local": {\#(base), "data": {"K": 1, "\u212a": 2}}}}"#).failure?.description,
                       "bk.local.data: duplicate member \"\u{212A}\"")
        XCTAssertEqual(decode(#"{"bk": {"local": {\#(base), "data": {"K": 1, "k": 2}}}}"#).failure?.description, nil)
    }

    func testValuesAreCheckedAsBefore() {
        let base = #""id": "a", "at": "2026-03-01T10:00", "title": "T""#
        let cases: [(String, String)] = [
            (#""graceSeconds": 10.0"#, "bk.local.graceSeconds: must be an integer ≥ 0"),
            (#""graceSeconds": -1"#, "bk.local.graceSeconds: must be an integer ≥ 0"),
            (#""graceSeconds": 99999999999"#, "bk.local.graceSeconds: larger than 3155760000"),
            (#""graceSeconds": 3155760001"#, "bk.local.graceSeconds: larger than 3155760000"),
            (#""snoozeSeconds": [60, 1e2]"#, "bk.local.snoozeSeconds[1]: must be an integer from 60 to 604800 (seconds)"),
            (#""snoozeSeconds": [60, 60]"#, "bk.local.snoozeSeconds[1]: duplicate duration 60"),
            (#""snoozeSeconds": [59]"#, "bk.local.snoozeSeconds[0]: must be from 60 to 604800 seconds (1 minute to 7 days)"),
            (#""cancelOn": ["e", 1]"#, "bk.local.cancelOn[1]: must be a string"),
            (#""cancelOn": ["e\u0085"]"#, "bk.local.cancelOn[0]: contains a control character"),
            (#""actions": [{"id": "a", "title": "A"}, {"id": "a", "title": "B"}]"#,
             #"bk.local.actions[1].id: duplicate action id "a""#),
            (#""actions": [1]"#, "bk.local.actions[0]: must be an object"),
            (#""body": "x\u0000""#, "bk.local.body: contains U+0000"),
            (#""icon": "i\u007f""#, "bk.local.icon: contains a control character"),
            (#""data": []"#, "bk.local.data: must be an object"),
        ]
        for (member, message) in cases {
            XCTAssertEqual(decode(#"{"bk": {"local": {\#(base), \#(member)}}}"#).failure?.description, message, member)
        }
        XCTAssertEqual(try decode(#"{"bk": {"local": {\#(base), "graceSeconds": 3155760000, "snoozeSeconds": [600, 60]}}}"#)
            .get().local.map { [$0.graceSeconds ?? -1] + $0.snoozeSeconds }, [3_155_760_000, 600, 60])
        XCTAssertEqual(decode(#"{"bk": {"local": {\#(base), "title": "\u00e9\u0080"}}}"#).failure?.description,
                       #"bk.local: duplicate member "title""#)
        XCTAssertEqual(try decode(#"{"bk": {"local": {"id": "a", "at": "2026-03-01T10:00", "title": "\u0080"}}}"#)
            .get().local?.title, "\u{80}", "a title may hold C1 controls (only U+0000 is refused)")
    }
}

/// Digests cross the store as 32-byte blobs when they are lower-case hex, as text otherwise.
final class StoreDigestCodingTests: XCTestCase {
    func testDigestBytesTakesLowerCaseHexOnly() {
        XCTAssertEqual(StoreRowCoding.digestBytes("0a"), [0x0A])
        XCTAssertEqual(StoreRowCoding.digestBytes("ff00"), [0xFF, 0x00])
        for text in ["", "a", "abc", "0A", "0g", "/0", ":0", "`0", "0 ", "é0", "fp1"] {
            XCTAssertNil(StoreRowCoding.digestBytes(text), text)
        }
        var rng = SplitMix64(seed: 0x7A9E_0003)
        for _ in 0..<200 {
            let bytes = (0..<32).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let hex = StoreRowCoding.digestHex(bytes)
            XCTAssertEqual(hex.utf8.count, 64)
            XCTAssertEqual(StoreRowCoding.digestBytes(hex), bytes)
        }
        XCTAssertEqual(StoreRowCoding.digestHex([0x01, 0xAB]), "01ab")
    }
}

/// The digest a store keeps, computed independently of the decoder's path.
private enum SHA256Reference {
    static func hex(_ text: String) -> String { StoreCoding.digest(ofFingerprint: text) }
}

private extension Result {
    var failure: Failure? { if case .failure(let e) = self { e } else { nil } }
}
