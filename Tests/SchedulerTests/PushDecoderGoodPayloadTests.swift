import SystemZones
import XCTest
import SchedCalendar
@testable import Scheduler

/// Valid pushes decode to exactly the values the contract describes.
final class PushDecoderGoodPayloadTests: XCTestCase {
    private func decode(_ json: String, file: StaticString = #filePath, line: UInt = #line) throws -> Push {
        do throws(PushError) {
            return try PushDecoder.decode(Array(json.utf8), zones: ZoneDatabase.shared)
        } catch {
            XCTFail("rejected: \(error)", file: file, line: line)
            throw error
        }
    }

    private func local(_ json: String, file: StaticString = #filePath, line: UInt = #line) throws -> LocalSchedule {
        let push = try decode(json, file: file, line: line)
        return try XCTUnwrap(push.local, file: file, line: line)
    }

    func testFloatingAtWithDefaults() throws {
        let s = try local(localPush())
        XCTAssertEqual(s, LocalSchedule(
            id: "run_1:a",
            trigger: .at(.floating(CivilDateTime(year: 2026, month: 3, day: 1, hour: 10, minute: 0), zone: nil)),
            title: "Hi",
            fingerprint: "{\"at\":\"2026-03-01T10:00\",\"id\":\"run_1:a\",\"title\":\"Hi\"}"))
        XCTAssertEqual(s.urgency, .normal)
        XCTAssertEqual(s.runId, "run_1")
    }

    func testFixedAtKeepsInstantAndOffset() throws {
        let cases: [(String, Int64, Int)] = [
            ("2026-03-01T10:00:00Z", 1_772_359_200, 0),        // 2026-03-01T10:00:00Z
            ("2026-03-01T10:00+05:30", 1_772_339_400, 19_800),  // 2026-03-01T04:30:00Z
            ("2026-03-01T10:00:00-03:00", 1_772_370_000, -10_800), // 2026-03-01T13:00:00Z
            ("2026-03-01T10:00:00-00:00", 1_772_359_200, 0),
            ("2026-12-31T23:59:59Z", 1_798_761_599, 0),         // 2026-12-31T23:59:59Z
        ]
        for (text, seconds, offset) in cases {
            let s = try local(localPush(trigger: "\"at\":\"\(text)\""))
            XCTAssertEqual(s.trigger, .at(.fixed(Instant(seconds: seconds), offsetSeconds: offset)), text)
        }
        // Fractional seconds: JavaScript's toISOString() form, and nanoseconds truncated to microseconds.
        let js = try local(localPush(trigger: "\"at\":\"2026-03-01T10:00:00.250Z\""))
        XCTAssertEqual(js.trigger, .at(.fixed(Instant(microseconds: 1_772_359_200_250_000), offsetSeconds: 0)))
        let go = try local(localPush(trigger: "\"at\":\"2026-03-01T10:00:00.123456789+00:00\""))
        XCTAssertEqual(go.trigger, .at(.fixed(Instant(microseconds: 1_772_359_200_123_456), offsetSeconds: 0)))
    }

    func testFloatingAtPinnedToUTCAndLeapDay() throws {
        let s = try local(localPush("\"timeZone\":\"UTC\"", trigger: "\"at\":\"2028-02-29T12:00:30\""))
        XCTAssertEqual(s.trigger, .at(.floating(CivilDateTime(year: 2028, month: 2, day: 29, hour: 12, minute: 0, second: 30),
                                                zone: "UTC")))
    }

    /// Needs the zoneinfo database (a STUB that knows only UTC until it lands).
    func testFloatingAtPinnedToNamedZones() throws {
        for zone in ["Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"] {
            let s = try local(localPush("\"timeZone\":\"\(zone)\"", trigger: "\"at\":\"2026-03-08T02:30\""))
            XCTAssertEqual(s.trigger, .at(.floating(CivilDateTime(year: 2026, month: 3, day: 8, hour: 2, minute: 30),
                                                    zone: zone)))
        }
    }

    func testCalendarWithUntil() throws {
        let floating = try local(localPush("\"until\":\"2026-06-30T18:00\"", trigger: "\"calendar\":\"Mon..Fri 09:00\""))
        XCTAssertEqual(floating.trigger, .calendar("Mon..Fri 09:00"))
        XCTAssertEqual(floating.until, .floating(CivilDateTime(year: 2026, month: 6, day: 30, hour: 18, minute: 0), zone: nil))
        let fixed = try local(localPush("\"until\":\"2026-03-01T10:00:00Z\"", trigger: "\"calendar\":\"daily\""))
        XCTAssertEqual(fixed.until, .fixed(Instant(seconds: 1_772_359_200), offsetSeconds: 0))
        XCTAssertNil(try local(localPush(trigger: "\"calendar\":\"daily\"")).until)
    }

    /// Needs the calendar parser (its `timeZoneName`); a floating `until` floats in the calendar's zone.
    func testUntilFloatsInTheCalendarsZone() throws {
        let s = try local(localPush("\"until\":\"2026-06-30T18:00\"", trigger: "\"calendar\":\"*-*-* 09:00 UTC\""))
        XCTAssertEqual(s.until, .floating(CivilDateTime(year: 2026, month: 6, day: 30, hour: 18, minute: 0), zone: "UTC"))
    }

    func testEveryOptionalMember() throws {
        let json = """
            {"bk":{"messageId":"m-1","local":{"id":"run_9:step2","at":"2026-03-01T10:00","title":"Tea",
             "body":"<b>not markup</b>\\nline 2","data":{ "z" : [1, 2.50, {"y":null}], "a" : "é" },
             "cancelOn":["opened","dismissed"],"graceSeconds":0,"urgency":"critical","icon":"dialog-information",
             "category":"im.received","actions":[{"id":"open","title":"Open"},{"id":"snooze","title":"Later"}]}}}
            """
        let push = try decode(json)
        XCTAssertEqual(push.messageId, "m-1")
        XCTAssertNil(push.cancel)
        XCTAssertEqual(push.unknownMembers, [])
        let s = try XCTUnwrap(push.local)
        XCTAssertEqual(s.id, "run_9:step2")
        XCTAssertEqual(s.runId, "run_9")
        XCTAssertEqual(s.title, "Tea")
        XCTAssertEqual(s.body, "<b>not markup</b>\nline 2")
        XCTAssertEqual(s.dataJSON, "{\"z\":[1,2.50,{\"y\":null}],\"a\":\"é\"}")  // compact, document order
        XCTAssertEqual(s.cancelOn, ["opened", "dismissed"])
        XCTAssertEqual(s.graceSeconds, 0)
        XCTAssertEqual(s.urgency, .critical)
        XCTAssertEqual(s.icon, "dialog-information")
        XCTAssertEqual(s.category, "im.received")
        XCTAssertEqual(s.actions, [NotificationAction(id: "open", title: "Open"), NotificationAction(id: "snooze", title: "Later")])
        for u in Urgency.allCases {
            XCTAssertEqual(try local(localPush("\"urgency\":\"\(u.rawValue)\"")).urgency, u)
        }
    }

    func testLimitsAreInclusive() throws {
        let s = try local(localPush("""
            "body":"\(String(repeating: "b", count: 8192))",\
            "cancelOn":[\((0..<32).map { _ in "\"" + String(repeating: "e", count: 128) + "\"" }.joined(separator: ","))],\
            "graceSeconds":3155760000,\
            "icon":"\(String(repeating: "i", count: 1024))",\
            "actions":[{"id":"a","title":"A"},{"id":"b","title":"B"},{"id":"c","title":"C"}]
            """, id: "\"\(String(repeating: "é", count: 100))\"", title: "\"\(String(repeating: "t", count: 1024))\""))
        XCTAssertEqual(s.id.utf8.count, 200)
        XCTAssertEqual(s.title.utf8.count, 1024)
        XCTAssertEqual(s.body?.utf8.count, 8192)
        XCTAssertEqual(s.cancelOn.count, 32)
        XCTAssertEqual(s.graceSeconds, PushDecoder.maxGraceSeconds)
        XCTAssertEqual(s.actions.count, 3)
        // data of exactly 16 KiB serialized: {"k":"…"} is 8 bytes of framing.
        let data = try local(localPush("\"data\":{\"k\":\"\(String(repeating: "d", count: 16_376))\"}"))
        XCTAssertEqual(data.dataJSON?.utf8.count, 16_384)
        // A push of exactly 64 KiB (padding in a root member, which belongs to the sender).
        let base = localPush()
        let padding = 65_536 - base.utf8.count - "{\"pad\":\"\",".utf8.count + 1
        let exact = "{\"pad\":\"" + String(repeating: "p", count: padding) + "\"," + base.dropFirst()
        XCTAssertEqual(exact.utf8.count, 65_536)
        XCTAssertEqual(try local(exact).id, "run_1:a")
        // Nesting of exactly 64 levels: root, bk, local, data, then 60 arrays.
        let deep = try local(localPush("\"data\":{\"k\":" + String(repeating: "[", count: 60) + String(repeating: "]", count: 60) + "}"))
        XCTAssertEqual(deep.dataJSON?.utf8.count, 5 + 120 + 1)
    }

    func testCancelRequests() throws {
        XCTAssertEqual(try decode("{\"bk\":{\"cancel\":{\"id\":\"run_1:a\"}}}"), Push(cancel: .id("run_1:a")))
        XCTAssertEqual(try decode("{\"bk\":{\"cancel\":{\"run\":\"run_1\"}}}"), Push(cancel: .run("run_1")))
        let both = try decode("{\"bk\":{\"cancel\":{\"run\":\"run_1\"},\"local\":\(localPush().dropFirst(15).dropLast(2))}}")
        XCTAssertEqual(both.cancel, .run("run_1"))
        XCTAssertEqual(both.local?.id, "run_1:a")
    }

    func testUnknownMembersAreListedAsDottedPathsAndRootMembersIgnored() throws {
        let push = try decode("""
            {"aps":{"content-available":1},"other":[1],"bk":{"v":2,"cancel":{"run":"r","why":"x"},
             "local":{"id":"a","colour":"red","at":"2026-03-01T10:00","title":"T","sound":{"x":1},
             "actions":[{"id":"o","title":"O","icon":"i"}]}}}
            """)
        XCTAssertEqual(push.unknownMembers,
                       ["bk.v", "bk.cancel.why", "bk.local.colour", "bk.local.sound", "bk.local.actions[0].icon"])
        XCTAssertEqual(push.local?.fingerprint.contains("\"colour\":\"red\""), true)
    }

    func testFingerprintIgnoresKeyOrderAndWhitespaceButNotContent() throws {
        let a = try local("{\"bk\":{\"local\":{\"id\":\"x\",\"at\":\"2026-03-01T10:00\",\"title\":\"T\",\"data\":{\"a\":1,\"b\":[2,3]}}}}")
        let b = try local("""
            { "bk" : { "local" : {
                "data" : { "b" : [ 2 , 3 ] , "a" : 1 },
                "title" : "T", "at" : "2026-03-01T10:00",
                "id" : "x" } } , "ignored": true }
            """)
        XCTAssertEqual(a.fingerprint, b.fingerprint)
        XCTAssertEqual(a.fingerprint,
                       "{\"at\":\"2026-03-01T10:00\",\"data\":{\"a\":1,\"b\":[2,3]},\"id\":\"x\",\"title\":\"T\"}")
        XCTAssertEqual(a, b.with(dataJSON: a.dataJSON))  // only data's member order differs
        let escaped = try local("{\"bk\":{\"local\":{\"id\":\"x\",\"at\":\"2026-03-01T10:00\",\"title\":\"\\u0054\",\"data\":{\"a\":1,\"b\":[2,3]}}}}")
        XCTAssertEqual(escaped.fingerprint, a.fingerprint, "escapes are decoded before fingerprinting")

        let variants = [
            "{\"bk\":{\"local\":{\"id\":\"x\",\"at\":\"2026-03-01T10:00\",\"title\":\"T2\",\"data\":{\"a\":1,\"b\":[2,3]}}}}",
            "{\"bk\":{\"local\":{\"id\":\"x\",\"at\":\"2026-03-01T10:00\",\"title\":\"T\",\"data\":{\"a\":1,\"b\":[3,2]}}}}",
            "{\"bk\":{\"local\":{\"id\":\"x\",\"at\":\"2026-03-01T10:01\",\"title\":\"T\",\"data\":{\"a\":1,\"b\":[2,3]}}}}",
            "{\"bk\":{\"local\":{\"id\":\"x\",\"at\":\"2026-03-01T10:00\",\"title\":\"T\",\"data\":{\"a\":1.0,\"b\":[2,3]}}}}",
            "{\"bk\":{\"local\":{\"id\":\"x\",\"at\":\"2026-03-01T10:00\",\"title\":\"T\"}}}",
            "{\"bk\":{\"local\":{\"id\":\"x\",\"at\":\"2026-03-01T10:00\",\"title\":\"T\",\"data\":{\"a\":1,\"b\":[2,3]},\"new\":1}}}",
        ]
        var seen: Set<String> = [a.fingerprint]
        for v in variants {
            XCTAssertTrue(seen.insert(try local(v).fingerprint).inserted, v)
        }
        // The messageId is not part of bk.local, so redelivery with a new messageId is the same push.
        let withMessage = try local("{\"bk\":{\"messageId\":\"m2\",\"local\":{\"id\":\"x\",\"at\":\"2026-03-01T10:00\",\"title\":\"T\",\"data\":{\"a\":1,\"b\":[2,3]}}}}")
        XCTAssertEqual(withMessage.fingerprint, a.fingerprint)
    }

    /// The stored digests of existing databases are SHA-256 of this exact canonical text (keys sorted by
    /// their UTF-8 bytes at every level — `ﬀ` U+FB00 before `𝄞` U+1D11E, which UTF-16 order would swap —
    /// compact, the shortest escapes, numbers as written): a faster fingerprint must give the same bytes.
    /// Expected values from Python: json.dumps(local, separators=(",",":"), sort_keys=True,
    /// ensure_ascii=False) and hashlib.sha256.
    func testFingerprintAndDigestAreTheStoredCanonicalForm() throws {
        let s = try local(#"{"bk": {"local": {"id": "run_7:a", "at": "2026-03-01T10:00", "title": "Tee \u00e9\n", "body": "b\u0001", "data": {"z": 1, "Z": [true, null, 2.5], "\u00e9": "x", "a": {"\ufb00": 0, "\ud834\udd1e": 1, "b": "\\\"/"}}, "cancelOn": ["e1"], "urgency": "low", "x-extra": {"k": "v"}}}}"#)
        XCTAssertEqual(s.fingerprint, #"{"at":"2026-03-01T10:00","body":"b\u0001","cancelOn":["e1"],"data":{"Z":[true,null,2.5],"a":{"b":"\\\"/","ﬀ":0,"𝄞":1},"z":1,"é":"x"},"id":"run_7:a","title":"Tee é\n","urgency":"low","x-extra":{"k":"v"}}"#)
        XCTAssertEqual(s.digest, "1de4c0b32d9e4f8b9fa0bc30c973084a7a52ae6b122ced2876fd6ce1e8e73af1")
    }

    /// The daemon memoizes the digest when it decodes (off the loop for a batch): the memo is the digest,
    /// and a changed fingerprint forgets it (a stale memo would make a different push look "the same").
    func testMemoizedDigest_isTheDigest_untilTheFingerprintChanges() throws {
        var s = try local(#"{"bk":{"local":{"id":"m","at":"2026-03-01T10:00","title":"T"}}}"#)
        XCTAssertNil(s.memoizedDigest.hex, "the decoder alone does not hash (the CLI never starts libcrypto)")
        let digest = s.digest
        s.memoizeDigest()
        XCTAssertEqual(s.memoizedDigest.hex, digest)
        XCTAssertEqual(s.digest, digest)
        s.fingerprint = #"{"at":"2026-03-01T10:00","id":"m","title":"U"}"#
        XCTAssertNil(s.memoizedDigest.hex)
        XCTAssertNotEqual(s.digest, digest)
        XCTAssertEqual(s.digest, StoreCoding.digest(ofFingerprint: s.fingerprint))
        // The daemon asks the decoder to memoize as it builds the value.
        let memoized = try XCTUnwrap(PushDecoder.decode(Array(#"{"bk":{"local":{"id":"m","at":"2026-03-01T10:00","title":"T"}}}"#.utf8),
                                                        zones: ZoneDatabase.shared, memoizingDigest: true).local)
        XCTAssertEqual(memoized.memoizedDigest.hex, digest)
    }

    func testFingerprintIsItselfAValidLocalThatDecodesToTheSameSchedule() throws {
        let pushes = [
            localPush("\"data\":{\"q\":1,\"p\":[\"\\b\\f\\u0001\u{7F}\"]},\"cancelOn\":[\"e\"],\"urgency\":\"low\""),
            localPush("\"until\":\"2026-06-30T18:00Z\"", trigger: "\"calendar\":\"Mon..Fri 09:00\""),
            localPush("\"timeZone\":\"UTC\",\"actions\":[{\"title\":\"A\",\"id\":\"a\"}],\"graceSeconds\":5"),
        ]
        for json in pushes {
            let first = try local(json)
            let again = try local("{\"bk\":{\"local\":" + first.fingerprint + "}}")
            XCTAssertEqual(again.fingerprint, first.fingerprint)
            XCTAssertEqual(again.with(dataJSON: nil), first.with(dataJSON: nil))
            XCTAssertEqual(again.dataJSON.map { try? JSONValue.parse($0).serialized(sortedKeys: true) },
                           first.dataJSON.map { try? JSONValue.parse($0).serialized(sortedKeys: true) })
        }
    }

    func testDecodesAnyByteCollection() throws {
        let bytes = Array(localPush().utf8)
        let expected = try PushDecoder.decode(bytes, zones: ZoneDatabase.shared)
        XCTAssertEqual(try PushDecoder.decode(bytes[...], zones: ZoneDatabase.shared), expected)
        XCTAssertEqual(try bytes.withUnsafeBytes { raw in try PushDecoder.decode(raw, zones: ZoneDatabase.shared) }, expected)
    }

    func testDecodingIsDeterministic() throws {
        let json = localPush("\"data\":{\"q\":1,\"p\":2},\"cancelOn\":[\"e\"]")
        XCTAssertEqual(try decode(json), try decode(json))
    }
}

private extension LocalSchedule {
    func with(dataJSON: String?) -> LocalSchedule {
        var copy = self
        copy.dataJSON = dataJSON
        return copy
    }
}
