import SystemZones
import XCTest
@testable import Scheduler

/// A push that must be rejected: its bytes, the member the error must name, and optionally the
/// exact rule. Built from text or raw bytes.
struct BadPush {
    let name: String
    let bytes: [UInt8]
    let member: String
    let rule: String?

    init(_ name: String, _ json: String, _ member: String, _ rule: String? = nil) {
        self.name = name; self.bytes = Array(json.utf8); self.member = member; self.rule = rule
    }

    init(_ name: String, bytes: [UInt8], _ member: String, _ rule: String? = nil) {
        self.name = name; self.bytes = bytes; self.member = member; self.rule = rule
    }
}

/// A valid `bk.local` with `extra` members appended (`"k":v,…`), so each case states only what it breaks.
func localPush(_ extra: String = "", id: String = "\"run_1:a\"", trigger: String = "\"at\":\"2026-03-01T10:00\"",
               title: String = "\"Hi\"") -> String {
    // An empty argument leaves that member out.
    var members = [id.isEmpty ? "" : "\"id\":\(id)", trigger, title.isEmpty ? "" : "\"title\":\(title)"]
        .filter { !$0.isEmpty }
    if !extra.isEmpty { members.append(extra) }
    return "{\"bk\":{\"local\":{\(members.joined(separator: ","))}}}"
}

func jsonString(_ s: String) -> String { JSONValue.string(s).serialized() }

/// CONTRACT §1: every rule, one or more payloads that break it. Each must be rejected with an error
/// naming the member (and, where given, the exact rule); none may trap.
final class PushDecoderBadPayloadTests: XCTestCase {
    static let calendar = "\"calendar\":\"daily\""
    static let cancelOnNames = (0..<33).map { "\"e\($0)\"" }.joined(separator: ",")
    static let fourActions = (0..<4).map { "{\"id\":\"a\($0)\",\"title\":\"A\"}" }.joined(separator: ",")

    static let cases: [BadPush] = [
        // The push as a whole.
        BadPush("oversized push", "{\"pad\":\"" + String(repeating: "x", count: 65_520) + "\",\"bk\":{}}", "push",
                "larger than 65536 bytes"),
        BadPush("truncated JSON", "{\"bk\":", "push", "invalid JSON at byte 6: unexpected end of input"),
        BadPush("not JSON", "hello", "push"),
        BadPush("empty input", "", "push", "invalid JSON at byte 0: unexpected end of input"),
        BadPush("root array", "[{\"bk\":{}}]", "push", "must be a JSON object"),
        BadPush("root string", "\"bk\"", "push", "must be a JSON object"),
        BadPush("trailing garbage", localPush() + " x", "push"),
        BadPush("two pushes in one", localPush() + localPush(), "push"),
        BadPush("raw newline in title", localPush(title: "\"a\nb\""), "push"),
        BadPush("lone surrogate escape", localPush(title: "\"\\uD800\""), "push"),
        BadPush("invalid UTF-8 in title", bytes: Array(localPush(title: "\"X\"").utf8).map { $0 == UInt8(ascii: "X") ? 0xFF : $0 },
                "push"),
        BadPush("overlong UTF-8 in id", bytes: Array(localPush(id: "\"X\"").utf8).flatMap { $0 == UInt8(ascii: "X") ? [0xC0, 0xAF] : [$0] },
                "push"),
        BadPush("UTF-8 surrogate in body", bytes: Array(localPush("\"body\":\"X\"").utf8).flatMap { $0 == UInt8(ascii: "X") ? [0xED, 0xA0, 0x80] : [$0] },
                "push"),
        BadPush("deep nesting in data",
                localPush("\"data\":{\"k\":" + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}"),
                "push", "invalid JSON at byte 140: nested deeper than 64 levels"),
        BadPush("duplicate bk", "{\"bk\":{\"cancel\":{\"id\":\"a\"}},\"bk\":{\"cancel\":{\"id\":\"b\"}}}", "push",
                "duplicate member \"bk\""),
        BadPush("single quotes", "{'bk':{}}", "push"),
        BadPush("trailing comma", "{\"bk\":{\"cancel\":{\"id\":\"a\"},}}", "push"),
        // bk.
        BadPush("missing bk", "{\"aps\":{}}", "bk", "required"),
        BadPush("bk null", "{\"bk\":null}", "bk", "must be an object"),
        BadPush("bk array", "{\"bk\":[]}", "bk", "must be an object"),
        BadPush("bk string", "{\"bk\":\"local\"}", "bk", "must be an object"),
        BadPush("bk empty", "{\"bk\":{}}", "bk", "one of \"local\" and \"cancel\" is required"),
        BadPush("bk only messageId", "{\"bk\":{\"messageId\":\"m\"}}", "bk"),
        BadPush("duplicate local", "{\"bk\":{\"cancel\":{\"id\":\"a\"},\"cancel\":{\"id\":\"b\"}}}", "bk",
                "duplicate member \"cancel\""),
        BadPush("messageId number", "{\"bk\":{\"messageId\":7,\"cancel\":{\"id\":\"a\"}}}", "bk.messageId",
                "must be a string"),
        BadPush("messageId too long", "{\"bk\":{\"messageId\":\"\(String(repeating: "m", count: 1025))\",\"cancel\":{\"id\":\"a\"}}}",
                "bk.messageId", "longer than 1024 bytes"),
        // bk.cancel.
        BadPush("cancel string", "{\"bk\":{\"cancel\":\"run_1\"}}", "bk.cancel", "must be an object"),
        BadPush("cancel empty", "{\"bk\":{\"cancel\":{}}}", "bk.cancel", "exactly one of \"id\" and \"run\" is required"),
        BadPush("cancel id and run", "{\"bk\":{\"cancel\":{\"id\":\"a:1\",\"run\":\"a\"}}}", "bk.cancel"),
        BadPush("cancel id empty", "{\"bk\":{\"cancel\":{\"id\":\"\"}}}", "bk.cancel.id", "must not be empty"),
        BadPush("cancel run number", "{\"bk\":{\"cancel\":{\"run\":1}}}", "bk.cancel.run", "must be a string"),
        BadPush("cancel id too long", "{\"bk\":{\"cancel\":{\"id\":\"\(String(repeating: "i", count: 201))\"}}}", "bk.cancel.id",
                "longer than 200 bytes"),
        BadPush("cancel run control char", "{\"bk\":{\"cancel\":{\"run\":\"r\\u0001\"}}}", "bk.cancel.run",
                "contains a control character"),
        BadPush("cancel bad even with good local", "{\"bk\":{\"cancel\":{\"id\":null},\"local\":\(localPush().dropFirst(15).dropLast(2))}}",
                "bk.cancel.id"),
        // bk.local and its id.
        BadPush("local array", "{\"bk\":{\"local\":[]}}", "bk.local", "must be an object"),
        BadPush("local null", "{\"bk\":{\"local\":null}}", "bk.local", "must be an object"),
        BadPush("duplicate title", localPush("\"title\":\"again\""), "bk.local", "duplicate member \"title\""),
        BadPush("missing id", localPush(id: ""), "bk.local.id", "required"),
        BadPush("id number", localPush(id: "42"), "bk.local.id", "must be a string"),
        BadPush("id null", localPush(id: "null"), "bk.local.id", "must be a string"),
        BadPush("id empty", localPush(id: "\"\""), "bk.local.id", "must not be empty"),
        BadPush("id 201 bytes", localPush(id: "\"\(String(repeating: "x", count: 201))\""), "bk.local.id",
                "longer than 200 bytes"),
        BadPush("id 201 UTF-8 bytes", localPush(id: "\"\(String(repeating: "é", count: 100))x\""), "bk.local.id",
                "longer than 200 bytes"),
        BadPush("id newline", localPush(id: "\"a\\nb\""), "bk.local.id", "contains a control character"),
        BadPush("id DEL", localPush(id: "\"a\\u007fb\""), "bk.local.id", "contains a control character"),
        BadPush("id C1 control", localPush(id: "\"a\\u0085b\""), "bk.local.id", "contains a control character"),
        BadPush("id NUL", localPush(id: "\"a\\u0000\""), "bk.local.id", "contains a control character"),
        // title.
        BadPush("missing title", localPush(title: ""), "bk.local.title", "required"),
        BadPush("title number", localPush(title: "1"), "bk.local.title", "must be a string"),
        BadPush("title null", localPush(title: "null"), "bk.local.title", "must be a string"),
        BadPush("title 1025 bytes", localPush(title: "\"\(String(repeating: "t", count: 1025))\""), "bk.local.title",
                "longer than 1024 bytes"),
        BadPush("title NUL", localPush(title: "\"a\\u0000\""), "bk.local.title", "contains U+0000"),
        // at / calendar presence.
        BadPush("neither at nor calendar", localPush(trigger: ""), "bk.local",
                "exactly one of \"at\" and \"calendar\" is required"),
        BadPush("both at and calendar", localPush(calendar), "bk.local",
                "exactly one of \"at\" and \"calendar\" is required"),
        // at.
        BadPush("at number", localPush(trigger: "\"at\":1772359200"), "bk.local.at", "must be a string"),
        BadPush("at Feb 30", localPush(trigger: "\"at\":\"2026-02-30T10:00\""), "bk.local.at",
                "2026-02-30T10:00 is not a date"),
        BadPush("at month 13", localPush(trigger: "\"at\":\"2026-13-01T10:00\""), "bk.local.at",
                "2026-13-01T10:00 is not a date"),
        BadPush("at month 00", localPush(trigger: "\"at\":\"2026-00-10T10:00\""), "bk.local.at", "2026-00-10T10:00 is not a date"),
        BadPush("at day 00", localPush(trigger: "\"at\":\"2026-01-00T10:00\""), "bk.local.at", "2026-01-00T10:00 is not a date"),
        BadPush("at Feb 29 non-leap", localPush(trigger: "\"at\":\"2025-02-29T10:00\""), "bk.local.at",
                "2025-02-29T10:00 is not a date"),
        BadPush("at Feb 29 1900", localPush(trigger: "\"at\":\"1900-02-29T10:00\""), "bk.local.at", "1900-02-29T10:00 is not a date"),
        BadPush("at Apr 31", localPush(trigger: "\"at\":\"2026-04-31T10:00\""), "bk.local.at", "2026-04-31T10:00 is not a date"),
        BadPush("at year 0", localPush(trigger: "\"at\":\"0000-01-01T00:00\""), "bk.local.at", "0000-01-01T00:00 is not a date"),
        BadPush("at 24:00", localPush(trigger: "\"at\":\"2026-03-01T24:00\""), "bk.local.at",
                "2026-03-01T24:00 is not a time"),
        BadPush("at minute 60", localPush(trigger: "\"at\":\"2026-03-01T10:60\""), "bk.local.at", "2026-03-01T10:60 is not a time"),
        BadPush("at leap second", localPush(trigger: "\"at\":\"2026-06-30T23:59:60Z\""), "bk.local.at",
                "2026-06-30T23:59:60Z is not a time"),
        BadPush("at date only", localPush(trigger: "\"at\":\"2026-03-01\""), "bk.local.at",
                "\"2026-03-01\" is not YYYY-MM-DDTHH:MM[:SS] with an optional Z or ±HH:MM"),
        BadPush("at space separator", localPush(trigger: "\"at\":\"2026-03-01 10:00\""), "bk.local.at"),
        BadPush("at lowercase t", localPush(trigger: "\"at\":\"2026-03-01t10:00\""), "bk.local.at"),
        BadPush("at words", localPush(trigger: "\"at\":\"tomorrow\""), "bk.local.at"),
        BadPush("at single-digit fields", localPush(trigger: "\"at\":\"2026-3-1T10:00\""), "bk.local.at"),
        BadPush("at five-digit year", localPush(trigger: "\"at\":\"12026-03-01T10:00\""), "bk.local.at"),
        BadPush("at offset +24:00", localPush(trigger: "\"at\":\"2026-03-01T10:00+24:00\""), "bk.local.at",
                "2026-03-01T10:00+24:00 has an invalid UTC offset"),
        BadPush("at offset without colon", localPush(trigger: "\"at\":\"2026-03-01T10:00+0100\""), "bk.local.at"),
        BadPush("at zone name suffix", localPush(trigger: "\"at\":\"2026-03-01T10:00 Europe/Berlin\""), "bk.local.at"),
        BadPush("at fraction without seconds", localPush(trigger: "\"at\":\"2026-03-01T10:00.5\""), "bk.local.at"),
        BadPush("at ten fraction digits", localPush(trigger: "\"at\":\"2026-03-01T10:00:00.1234567890Z\""), "bk.local.at"),
        BadPush("at empty fraction", localPush(trigger: "\"at\":\"2026-03-01T10:00:00.Z\""), "bk.local.at"),
        BadPush("at control chars quoted", localPush(trigger: "\"at\":\"\\u0007\\\"x\""), "bk.local.at",
                "\"\\u0007\\\"x\" is not YYYY-MM-DDTHH:MM[:SS] with an optional Z or ±HH:MM"),
        // timeZone.
        BadPush("unknown zone", localPush("\"timeZone\":\"Mars/Olympus_Mons\""), "bk.local.timeZone",
                "unknown time zone \"Mars/Olympus_Mons\""),
        BadPush("zone path traversal", localPush("\"timeZone\":\"../../etc/passwd\""), "bk.local.timeZone"),
        BadPush("zone empty", localPush("\"timeZone\":\"\""), "bk.local.timeZone"),
        BadPush("zone number", localPush("\"timeZone\":1"), "bk.local.timeZone", "must be a string"),
        BadPush("zone with fixed at", localPush("\"timeZone\":\"UTC\"", trigger: "\"at\":\"2026-03-01T10:00Z\""),
                "bk.local.timeZone", "not allowed with a fixed-offset \"at\""),
        BadPush("zone with calendar", localPush("\"timeZone\":\"UTC\"", trigger: calendar), "bk.local.timeZone"),
        // calendar (type and size; grammar cases are in testInvalidCalendarExpressions).
        BadPush("calendar number", localPush(trigger: "\"calendar\":9"), "bk.local.calendar", "must be a string"),
        BadPush("calendar array", localPush(trigger: "\"calendar\":[\"daily\"]"), "bk.local.calendar", "must be a string"),
        BadPush("calendar control char", localPush(trigger: "\"calendar\":\"daily\\u0007\""), "bk.local.calendar",
                "contains a control character"),
        BadPush("calendar too long", localPush(trigger: "\"calendar\":\"\(String(repeating: " ", count: 1020))daily\""),
                "bk.local.calendar", "longer than 1024 bytes"),
        // until.
        BadPush("until with at", localPush("\"until\":\"2026-04-01T00:00\""), "bk.local.until",
                "only allowed with \"calendar\""),
        BadPush("until not a date", localPush("\"until\":\"2026-02-29T00:00\"", trigger: calendar), "bk.local.until",
                "2026-02-29T00:00 is not a date"),
        BadPush("until number", localPush("\"until\":0", trigger: calendar), "bk.local.until", "must be a string"),
        // body.
        BadPush("body number", localPush("\"body\":5"), "bk.local.body", "must be a string"),
        BadPush("body 8193 bytes", localPush("\"body\":\"\(String(repeating: "b", count: 8193))\""), "bk.local.body",
                "longer than 8192 bytes"),
        // data.
        BadPush("data array", localPush("\"data\":[1]"), "bk.local.data", "must be an object"),
        BadPush("data string", localPush("\"data\":\"{}\""), "bk.local.data", "must be an object"),
        BadPush("data null", localPush("\"data\":null"), "bk.local.data", "must be an object"),
        BadPush("data over 16 KiB", localPush("\"data\":{\"k\":\"\(String(repeating: "d", count: 16_378))\"}"),
                "bk.local.data", "larger than 16384 bytes serialized"),
        BadPush("data duplicate keys", localPush("\"data\":{\"a\":{\"x\":1,\"x\":2}}"), "bk.local.data",
                "duplicate member \"x\""),
        // Objects of more than 16 members are checked by hashing, smaller ones pair by pair: both find the
        // first repeated name in document order, names compared as Swift strings (é composed = decomposed).
        BadPush("data 20 keys, duplicate last", localPush("\"data\":{\((0..<19).map { "\"k\($0)\":0" }.joined(separator: ",")),\"k3\":1}"),
                "bk.local.data", "duplicate member \"k3\""),
        BadPush("local 20 members, duplicate", localPush((0..<17).map { "\"x\($0)\":0" }.joined(separator: ",") + ",\"title\":\"B\""),
                "bk.local", "duplicate member \"title\""),
        BadPush("data canonically equal keys", localPush("\"data\":{\"\\u00e9\":1,\"e\\u0301\":2}"), "bk.local.data",
                "duplicate member \"é\""),
        // cancelOn.
        BadPush("cancelOn string", localPush("\"cancelOn\":\"opened\""), "bk.local.cancelOn", "must be an array"),
        BadPush("cancelOn 33 events", localPush("\"cancelOn\":[\(cancelOnNames)]"), "bk.local.cancelOn",
                "more than 32 events"),
        BadPush("cancelOn number item", localPush("\"cancelOn\":[\"ok\",2]"), "bk.local.cancelOn[1]", "must be a string"),
        BadPush("cancelOn empty name", localPush("\"cancelOn\":[\"\"]"), "bk.local.cancelOn[0]", "must not be empty"),
        BadPush("cancelOn 129-byte name", localPush("\"cancelOn\":[\"\(String(repeating: "e", count: 129))\"]"),
                "bk.local.cancelOn[0]", "longer than 128 bytes"),
        // graceSeconds.
        BadPush("grace fraction", localPush("\"graceSeconds\":1.5"), "bk.local.graceSeconds", "must be an integer ≥ 0"),
        BadPush("grace negative", localPush("\"graceSeconds\":-1"), "bk.local.graceSeconds", "must be an integer ≥ 0"),
        BadPush("grace string", localPush("\"graceSeconds\":\"10\""), "bk.local.graceSeconds", "must be an integer ≥ 0"),
        BadPush("grace exponent", localPush("\"graceSeconds\":1e3"), "bk.local.graceSeconds", "must be an integer ≥ 0"),
        BadPush("grace 10.0", localPush("\"graceSeconds\":10.0"), "bk.local.graceSeconds", "must be an integer ≥ 0"),
        BadPush("grace null", localPush("\"graceSeconds\":null"), "bk.local.graceSeconds", "must be an integer ≥ 0"),
        BadPush("grace bool", localPush("\"graceSeconds\":true"), "bk.local.graceSeconds", "must be an integer ≥ 0"),
        BadPush("grace overflow", localPush("\"graceSeconds\":99999999999999999999999999"), "bk.local.graceSeconds",
                "larger than 3155760000"),
        BadPush("grace above cap", localPush("\"graceSeconds\":3155760001"), "bk.local.graceSeconds",
                "larger than 3155760000"),
        // urgency.
        BadPush("urgency unknown", localPush("\"urgency\":\"high\""), "bk.local.urgency",
                "must be one of low, normal, critical"),
        BadPush("urgency capitalised", localPush("\"urgency\":\"Normal\""), "bk.local.urgency"),
        BadPush("urgency number", localPush("\"urgency\":2"), "bk.local.urgency", "must be a string"),
        // icon, category.
        BadPush("icon number", localPush("\"icon\":1"), "bk.local.icon", "must be a string"),
        BadPush("icon too long", localPush("\"icon\":\"\(String(repeating: "i", count: 1025))\""), "bk.local.icon",
                "longer than 1024 bytes"),
        BadPush("category array", localPush("\"category\":[\"im\"]"), "bk.local.category", "must be a string"),
        BadPush("category control char", localPush("\"category\":\"im\\r\""), "bk.local.category"),
        // actions.
        BadPush("actions object", localPush("\"actions\":{\"id\":\"a\",\"title\":\"A\"}"), "bk.local.actions",
                "must be an array"),
        BadPush("four actions", localPush("\"actions\":[\(fourActions)]"), "bk.local.actions", "more than 3 actions"),
        BadPush("action string", localPush("\"actions\":[\"open\"]"), "bk.local.actions[0]", "must be an object"),
        BadPush("action missing id", localPush("\"actions\":[{\"title\":\"A\"}]"), "bk.local.actions[0].id", "required"),
        BadPush("action missing title", localPush("\"actions\":[{\"id\":\"a\"}]"), "bk.local.actions[0].title", "required"),
        BadPush("action empty id", localPush("\"actions\":[{\"id\":\"\",\"title\":\"A\"}]"), "bk.local.actions[0].id",
                "must not be empty"),
        BadPush("action empty title", localPush("\"actions\":[{\"id\":\"a\",\"title\":\"\"}]"),
                "bk.local.actions[0].title", "must not be empty"),
        BadPush("action id number", localPush("\"actions\":[{\"id\":1,\"title\":\"A\"}]"), "bk.local.actions[0].id",
                "must be a string"),
        BadPush("duplicate action ids",
                localPush("\"actions\":[{\"id\":\"a\",\"title\":\"A\"},{\"id\":\"a\",\"title\":\"B\"}]"),
                "bk.local.actions[1].id", "duplicate action id \"a\""),
        BadPush("action duplicate member", localPush("\"actions\":[{\"id\":\"a\",\"id\":\"b\",\"title\":\"A\"}]"),
                "bk.local.actions[0]", "duplicate member \"id\""),
    ]

    private func decode(_ bytes: [UInt8]) -> Result<Push, PushError> {
        do throws(PushError) { return .success(try PushDecoder.decode(bytes, zones: ZoneDatabase.shared)) } catch { return .failure(error) }
    }

    private func check(_ cases: [BadPush]) {
        for c in cases {
            switch decode(c.bytes) {
            case .success(let push): XCTFail("\(c.name): accepted as \(push)")
            case .failure(let error):
                XCTAssertEqual(error.member, c.member, "\(c.name): \(error)")
                if let rule = c.rule { XCTAssertEqual(error.rule, rule, c.name) }
                XCTAssertEqual(error.description, error.member + ": " + error.rule)
            }
        }
    }

    func testBadPayloadsAreRejectedNamingTheMember() {
        XCTAssertGreaterThanOrEqual(Self.cases.count, 60)
        XCTAssertEqual(Set(Self.cases.map(\.name)).count, Self.cases.count, "case names are unique")
        check(Self.cases)
    }

    /// Needs the systemd calendar-expression parser (a STUB that accepts anything until it lands).
    func testInvalidCalendarExpressions() {
        check([
            BadPush("calendar hour 25", localPush(trigger: "\"calendar\":\"Mon..Fri 25:00\""), "bk.local.calendar"),
            BadPush("calendar words", localPush(trigger: "\"calendar\":\"every other tuesday\""), "bk.local.calendar"),
            BadPush("calendar empty", localPush(trigger: "\"calendar\":\"\""), "bk.local.calendar"),
            BadPush("calendar bad weekday", localPush(trigger: "\"calendar\":\"Mon..Fry 09:00\""), "bk.local.calendar"),
            BadPush("calendar unknown zone", localPush(trigger: "\"calendar\":\"daily Mars/Olympus_Mons\""),
                    "bk.local.calendar"),
            BadPush("calendar hour 25, exact", localPush(trigger: "\"calendar\":\"Mon..Fri 25:00\""), "bk.local.calendar",
                    "'Mon..Fri 25:00': hour 25 is out of range 0…23 at offset 9"),
            BadPush("calendar unknown zone after time", localPush(trigger: "\"calendar\":\"*-*-* 09:00 Mars/Olympus_Mons\""),
                    "bk.local.calendar"),
        ])
    }

    func testTheExactMessagesFromTheContract() {
        let expected = [
            (localPush(trigger: "\"at\":\"2026-02-30T10:00\""), "bk.local.at: 2026-02-30T10:00 is not a date"),
            (localPush("\"cancelOn\":[\(Self.cancelOnNames)]"), "bk.local.cancelOn: more than 32 events"),
            (localPush(title: ""), "bk.local.title: required"),
            (localPush(trigger: ""), "bk.local: exactly one of \"at\" and \"calendar\" is required"),
            (String(repeating: " ", count: 65_537), "push: larger than 65536 bytes"),
            ("{\"bk\":{\"local\":{\"id\":\"a\nb\"}}}", "push: invalid JSON at byte 23: control character 0x0A in string"),
        ]
        for (json, message) in expected {
            guard case .failure(let error) = decode(Array(json.utf8)) else { XCTFail("accepted: \(message)"); continue }
            XCTAssertEqual(error.description, message)
        }
    }
}
