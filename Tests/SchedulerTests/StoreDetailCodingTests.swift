import SchedCalendar
import SeededRandomness
import XCTest
@testable import Scheduler

/// `schedules.detail` (`StoreRowCoding.detail`, written by `DetailWriter`) against the encoding it
/// replaced — `StoreCoding.encodeList` over the tag/value strings, kept here as the reference — on 500
/// seeded schedules of every kind and field, negative numbers and non-ASCII texts included; and every one
/// read back (`StoreRowCoding.read` through a real store) as it was written.
final class StoreDetailCodingTests: XCTestCase {
    /// The encoder before issue 35 (a String per number and pair, then `encodeList`): the reference.
    private func referenceDetail(_ s: StoredSchedule) -> String? {
        var pairs: [String] = []
        func add(_ tag: String, _ value: String?) { if let value { pairs += [tag, value] } }
        if let at = s.atInstant, at != s.next { add("a", String(at.microseconds)) }
        if s.kind == .fixedAt {
            if s.atOffset != 0 { add("o", s.atOffset.map { String($0) } ?? "") }
        } else {
            add("o", s.atOffset.map { String($0) })
        }
        add("s", s.spec)
        add("w", s.wall.map { String(StoreCoding.encodeWall($0)) })
        add("u", s.untilInstant.map { String($0.microseconds) })
        add("U", s.untilWall.map { String(StoreCoding.encodeWall($0)) })
        add("l", s.lastDue.map { String($0.microseconds) })
        if !s.cancelOn.isEmpty { add("c", StoreCoding.encodeList(s.cancelOn)) }
        add("g", s.graceSeconds.map { String($0) })
        if s.urgency != .normal { add("r", String(StoreCoding.encodeUrgency(s.urgency))) }
        add("i", s.icon)
        add("k", s.category)
        add("t", StoreCoding.encodeActions(s.actions))
        add("m", s.messageId)
        add("x", StoreCoding.encode(extras: s.extras))
        if s.kind != .fixedAt { add("T", String(s.storedAt.microseconds)) }
        return pairs.isEmpty ? nil : StoreCoding.encodeList(pairs)
    }

    private func maybe<T>(_ rng: inout SplitMix64, _ make: (inout SplitMix64) -> T) -> T? {
        Bool.random(using: &rng) ? make(&rng) : nil
    }

    private func text(_ rng: inout SplitMix64) -> String {
        let pool = ["", "a", "run_7:s3", "12:34", "é€😀", "1:x0:", "\u{0}", String(repeating: "z", count: 40)]
        return pool.randomElement(using: &rng)!
    }

    private func instant(_ rng: inout SplitMix64) -> Instant {
        let picks: [Int64] = [0, -1, 1, -62_135_596_800_000_000, 253_402_300_799_999_999, 1_780_000_000_000_000, -9_999_999]
        return Instant(microseconds: Bool.random(using: &rng) ? picks.randomElement(using: &rng)!
                       : Int64.random(in: -100_000_000_000_000_000...100_000_000_000_000_000, using: &rng))
    }

    private func schedule(_ rng: inout SplitMix64) -> StoredSchedule {
        let kinds: [StoredTriggerKind] = [.fixedAt, .floatingAt, .calendar]
        let kind = kinds.randomElement(using: &rng)!
        let next = instant(&rng)
        var extras = NotificationExtras()
        if Bool.random(using: &rng) { extras.deepLink = "app://x/\(Int.random(in: 0...99, using: &rng))" }
        if Bool.random(using: &rng) { extras.snoozeSeconds = [300, 3600] }
        return StoredSchedule(
            key: 0, app: Engine.defaultApp, id: "run_\(Int.random(in: 0...9, using: &rng)):s\(Int.random(in: 0...999, using: &rng))",
            kind: kind, spec: kind == .calendar ? "Mon..Fri 09:00" : nil,
            atInstant: Bool.random(using: &rng) ? next : maybe(&rng, instant),
            atOffset: maybe(&rng) { Int.random(in: -50_400...50_400, using: &$0) } ?? (Bool.random(using: &rng) ? 0 : nil),
            wall: maybe(&rng) { CivilDateTime(instant: instant(&$0), offsetSeconds: 0) }, zone: maybe(&rng) { _ in "Europe/Berlin" },
            untilInstant: maybe(&rng, instant), untilWall: maybe(&rng) { CivilDateTime(instant: instant(&$0), offsetSeconds: 0) },
            untilZone: nil, next: next, lastDue: maybe(&rng, instant), title: text(&rng), body: maybe(&rng, text),
            dataJSON: nil, cancelOn: Bool.random(using: &rng) ? [] : [text(&rng), "logout"],
            graceSeconds: maybe(&rng) { Int64.random(in: -5...999_999_999, using: &$0) },
            urgency: [Urgency.low, .normal, .critical].randomElement(using: &rng)!, icon: maybe(&rng, text),
            category: maybe(&rng, text), actions: Bool.random(using: &rng) ? [] : [NotificationAction(id: "ok", title: text(&rng))],
            messageId: maybe(&rng, text), fingerprint: "fp", storedAt: instant(&rng), extras: extras)
    }

    func testDetail_isByteForByteTheReferenceEncoding_andReadsBack() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTree(directory) }
        let store = try SQLiteScheduleStore(path: directory + "/detail.db")
        defer { store.close() }
        var rng = SplitMix64(seed: 0xDE7A11)
        var nonNil = 0
        for n in 0..<500 {
            var s = schedule(&rng)
            s.id = "d\(n)"
            let detail = StoreRowCoding.detail(of: s)
            XCTAssertEqual(detail, referenceDetail(s), "schedule \(n): \(s)")
            if detail != nil { nonNil += 1 }
            let key = try store.transaction { () throws(StoreError) in try store.schedules.insert(s) }
            let back = try XCTUnwrap(try store.schedules.schedule(key: key))
            XCTAssertEqual(StoreRowCoding.detail(of: back), detail, "schedule \(n) read back")
        }
        XCTAssertGreaterThan(nonNil, 400, "the generator must exercise the detail column")
    }

    func testDecimalLength_isStringCount() {
        for v: Int64 in [0, 9, 10, -1, -10, 99, 100, 1_000_000, Int64.max, Int64.min, Int64.min + 1] {
            XCTAssertEqual(DetailWriter.decimalLength(v), String(v).count, "\(v)")
        }
    }
}
