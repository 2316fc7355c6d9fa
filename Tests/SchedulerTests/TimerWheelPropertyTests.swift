import SeededRandomness
import XCTest
import SchedCalendar
@testable import Scheduler

/// The reference: a dictionary of dues; expiry filters and sorts by (due, key).
struct NaiveTimers {
    var dues: [Int64: Int64] = [:]
    var count: Int { dues.count }
    var nextExpiry: Int64? { dues.values.min() }
    mutating func insert(key: Int64, due: Int64) { dues[key] = due }
    mutating func cancel(key: Int64) -> Bool { dues.removeValue(forKey: key) != nil }
    mutating func advance(to t: Int64) -> [(key: Int64, due: Int64)] {
        let expired = dues.filter { $0.value <= t }.map { (key: $0.key, due: $0.value) }
            .sorted { ($0.due, $0.key) < ($1.due, $1.key) }
        for e in expired { dues.removeValue(forKey: e.key) }
        return expired
    }
}

final class TimerWheelPropertyTests: XCTestCase {
    static let second: Int64 = 1_000_000
    static let day: Int64 = 86_400 * second
    static let year: Int64 = 365 * day

    /// `a + b`, clamped to the Int64 range (the clock may have been advanced to its ends).
    func sat(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? .max : .min) : sum
    }

    /// A due relative to `now`, from microseconds to decades ahead, in the past, tied with a
    /// pending due, or near the ends of the Int64 range.
    func randomDue(now: Int64, model: NaiveTimers, _ rng: inout SplitMix64) -> Int64 {
        switch Int.random(in: 0..<20, using: &rng) {
        case 0..<3: return sat(now, Int64.random(in: -2_000...3_000, using: &rng))
        case 3..<5: return sat(now, Int64.random(in: 0...200_000, using: &rng))
        case 5..<7: return sat(now, Int64.random(in: 0...(30 * Self.second), using: &rng))
        case 7..<9: return sat(now, Int64.random(in: 0...(2 * Self.day), using: &rng))
        case 9..<12: return sat(now, Int64.random(in: 0...Self.year, using: &rng))
        case 12..<14: return sat(now, Int64.random(in: 0...(100 * Self.year), using: &rng))
        case 14..<16: return sat(now, -Int64.random(in: 0...Self.year, using: &rng))
        case 16..<18: return model.dues.values.randomElement(using: &rng) ?? now
        case 18: return Int64.max - Int64.random(in: 0...5_000, using: &rng)
        default: return Int64.min + Int64.random(in: 0...5_000, using: &rng)
        }
    }

    /// The next advance target: tiny steps, exactly to (or just before) the next expiry, days,
    /// years, and backwards by milliseconds or years.
    /// After a visit to the ends of the range, the clock is stepped back to `home`.
    func randomTarget(now: Int64, home: Int64, model: NaiveTimers, _ rng: inout SplitMix64) -> Int64 {
        if now > home + 500 * Self.year || now < 0 { return home + Int64.random(in: 0...Self.day, using: &rng) }
        let next = model.nextExpiry
        switch Int.random(in: 0..<20, using: &rng) {
        case 0..<4: return sat(now, Int64.random(in: 0...1_500, using: &rng))
        case 4..<6: return sat(now, Int64.random(in: 0...100_000, using: &rng))
        case 6..<8: if let next, next > Int64.min + 1 { return next } else { return now }
        case 8: if let next, next > Int64.min + 1 { return next - 1 } else { return now }
        case 9..<11: return sat(now, Int64.random(in: 0...(3 * Self.day), using: &rng))
        case 11..<13: return sat(now, Int64.random(in: 0...(3 * Self.year), using: &rng))
        case 13: return sat(now, Int64.random(in: 0...(80 * Self.year), using: &rng))
        case 14..<16: return sat(now, -Int64.random(in: 0...5_000, using: &rng))
        case 16..<18: return sat(now, -Int64.random(in: 0...(2 * Self.year), using: &rng))
        case 18: return now
        default: return sat(now, Int64.random(in: 0...(40 * Self.second), using: &rng))
        }
    }

    /// Runs `steps` random operations on a wheel and the model, comparing after every step.
    /// `keyOf` maps 0..<keySpace to the keys used (the identity, or keys that share their low bits).
    func check(seed: UInt64, steps: Int, keySpace: Int64, insertWeight: Int, checkEvery: Int = 1,
               keyOf: (Int64) -> Int64 = { $0 }) {
        var rng = SplitMix64(seed: seed)
        let start = Int64.random(in: (50 * Self.year)...(60 * Self.year), using: &rng)
        var now = start
        var wheel = TimerWheel(now: Instant(microseconds: now))
        var model = NaiveTimers()
        var expiredTotal = 0
        var normalExpired = 0
        for step in 0..<steps {
            let op = Int.random(in: 0..<100, using: &rng)
            let context = "seed \(seed) step \(step)"
            if op < insertWeight {
                let key = keyOf(Int64.random(in: 0..<keySpace, using: &rng))
                let due = randomDue(now: now, model: model, &rng)
                wheel.insert(key: key, due: Instant(microseconds: due))
                model.insert(key: key, due: due)
            } else if op < insertWeight + 15 {
                // Mostly a random key; sometimes the earliest pending one (forces a recompute).
                let key = op < insertWeight + 5
                    ? model.dues.min { ($0.value, $0.key) < ($1.value, $1.key) }?.key ?? 0
                    : keyOf(Int64.random(in: 0..<keySpace, using: &rng))
                XCTAssertEqual(wheel.cancel(key: key), model.cancel(key: key), "cancel \(key); \(context)")
            } else {
                let target = randomTarget(now: now, home: start, model: model, &rng)
                let got = wheel.advance(to: Instant(microseconds: target))
                let want = model.advance(to: target)
                expiredTotal += want.count
                XCTAssertEqual(got.map(\.key), want.map(\.key), "expired keys at \(target) from \(now); \(context)")
                XCTAssertEqual(got.map(\.due.microseconds), want.map(\.due), "expired dues; \(context)")
                now = target
                if now < start + 500 * Self.year { normalExpired += want.count }
                XCTAssertEqual(wheel.now.microseconds, now, context)
            }
            XCTAssertEqual(wheel.count, model.count, context)
            XCTAssertEqual(wheel.nextExpiry?.microseconds, model.nextExpiry, context)
            if step % checkEvery == 0 {
                for key in (0..<min(keySpace, 400)).map(keyOf) {
                    XCTAssertEqual(wheel.due(ofKey: key)?.microseconds, model.dues[key], "due of \(key); \(context)")
                }
                let violations = wheel.invariantViolations()
                XCTAssertEqual(violations, [], context)
                if !violations.isEmpty { return }
            }
        }
        XCTAssertGreaterThan(normalExpired, steps / 10, "the sequence should expire timers; seed \(seed)")
    }

    func testRandomSequences_matchSortedModel_smallKeySpace() {
        for seed: UInt64 in [1, 2, 3, 0xDEAD_BEEF, 20_261_129] {
            check(seed: seed, steps: 4_000, keySpace: 300, insertWeight: 50)
        }
    }

    func testRandomSequences_matchSortedModel_denseWheel() {
        for seed: UInt64 in [7, 11, 42] {
            check(seed: seed, steps: 6_000, keySpace: 5_000, insertWeight: 70, checkEvery: 25)
        }
    }

    /// Keys beyond 0..<2^32, whose fingerprints are not exact: negative keys, keys of 2^32 and up, and
    /// keys that share their low 32 bits, mixed with plain rowids. A high part of 2^30 + 1 folds away,
    /// so those keys have the same fingerprint as the plain rowid with the same low bits.
    func testRandomSequences_wideKeysSharingLowBits() {
        let highs: [Int64] = [0, 1, -1, 0x4000_0001, Int64(Int32.max), Int64(Int32.min), 0x1234_5678]
        let keyOf: (Int64) -> Int64 = { n in
            let high = highs[Int(n) % highs.count], low = n / Int64(highs.count)
            return high << 32 | low
        }
        XCTAssertEqual(Set((0..<350).map(keyOf)).count, 350, "the mapping gives distinct keys")
        let fingerprints = Dictionary(grouping: (0..<350).map(keyOf), by: TimerWheel.fingerprint)
        XCTAssertGreaterThanOrEqual(fingerprints.values.filter { $0.count > 1 }.count, 40,
                                    "wide keys share fingerprints with rowids, so the key table must tell them apart")
        for seed: UInt64 in [3, 2_026] {
            check(seed: seed, steps: 4_000, keySpace: 350, insertWeight: 55, keyOf: keyOf)
        }
    }

    /// Many timers in the same few slots: exercises cascading of crowded slots and ties.
    func testRandomSequences_crowdedSlots() {
        var rng = SplitMix64(seed: 99)
        let now = 1_700_000_000 * Self.second
        var wheel = TimerWheel(now: Instant(microseconds: now))
        var model = NaiveTimers()
        for key in Int64(0)..<3_000 {
            let due = now + Self.day + Int64.random(in: 0...3, using: &rng) * 777
            wheel.insert(key: key, due: Instant(microseconds: due))
            model.insert(key: key, due: due)
        }
        var t = now
        while model.count > 0 {
            t += Int64.random(in: 0...(Self.day / 3), using: &rng)
            XCTAssertEqual(wheel.advance(to: Instant(microseconds: t)).map(\.key), model.advance(to: t).map(\.key))
            XCTAssertEqual(wheel.nextExpiry?.microseconds, model.nextExpiry)
            XCTAssertEqual(wheel.invariantViolations(), [])
        }
    }
}
