import Foundation
import XCTest
@testable import ScheddPush

/// The back-off and log limit of RejectionRecorder's failed flushes (a full disk must not make the daemon
/// write and log every second).
final class RejectionFlushRetryTests: XCTestCase {
    let s: UInt64 = 1_000_000

    func testFailedFlushes_backOffFromOneSecondDoublingTo30_andStartOverAfterASuccess() {
        var retry = RejectionFlushRetry()
        var now: UInt64 = 5 * s
        var delays: [UInt64] = []
        for _ in 0..<8 {
            let (retryAt, _) = retry.failed(now: now, apps: 2, message: "database or disk is full")
            delays.append((retryAt - now) / s)
            now = retryAt
        }
        XCTAssertEqual(delays, [1, 2, 4, 8, 16, 30, 30, 30])
        XCTAssertEqual(retry.failures, 8)
        XCTAssertEqual(retry.succeeded(apps: 2), "recorded 2 app(s)' held rejected pushes after 8 failed attempt(s)")
        XCTAssertEqual(retry.failures, 0)
        XCTAssertEqual(retry.failed(now: now, apps: 1, message: "x").retryAt - now, s, "the back-off starts over")
    }

    func testTheLog_hasTheFirstFailure_thenAtMostOneLineAMinute_namingHowManyItLeftOut() {
        var retry = RejectionFlushRetry()
        var now: UInt64 = 0
        var lines: [(at: UInt64, line: String)] = []
        // Ten minutes of a full disk.
        while now < 600 * s {
            let (retryAt, line) = retry.failed(now: now, apps: 1, message: "database or disk is full")
            if let line { lines.append((now, line)) }
            now = retryAt
        }
        let attempts = retry.failures
        XCTAssertEqual(attempts, 24, "1+2+4+8+16 s, then every 30 s, up to ten minutes")
        XCTAssertTrue(lines[0].line.hasPrefix("cannot record 1 app(s)' rejected pushes: database or disk is full; "
                                              + "they are held in memory, next attempt in 1 s"), lines[0].line)
        XCTAssertLessThanOrEqual(lines.count, 11, "at most the first line and one a minute: \(lines.map(\.line))")
        XCTAssertGreaterThanOrEqual(lines.count, 9, "a failure that goes on is still reported: \(lines.map(\.line))")
        for (a, b) in zip(lines, lines.dropFirst()) {
            XCTAssertGreaterThanOrEqual(b.at - a.at, 60 * s, "two lines within a minute: \(a.line) / \(b.line)")
        }
        // Every attempt is accounted for: logged, or counted in a later line's "not logged".
        let notLogged = lines.dropFirst().map { number(#"(\d+) not logged"#, in: $0.line) ?? 0 }.reduce(0, +)
        let lastLineAttempts = number(#"\((\d+) attempts"#, in: lines.last!.line) ?? -1
        XCTAssertEqual(lines.count + notLogged, lastLineAttempts, "lines: \(lines.map(\.line))")
        XCTAssertLessThanOrEqual(attempts - lastLineAttempts, 2, "only the last minute's attempts are not yet told")
        XCTAssertTrue(lines.last!.line.hasPrefix("still cannot record 1 app(s)' rejected pushes ("), lines.last!.line)
    }

    func testASuccessWithoutFailures_logsNothing() {
        var retry = RejectionFlushRetry()
        XCTAssertNil(retry.succeeded(apps: 3))
    }

    /// The number captured by `pattern`'s first group in `line`.
    private func number(_ pattern: String, in line: String) -> Int? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let match = regex.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)),
              let range = Range(match.range(at: 1), in: line) else { return nil }
        return Int(line[range])
    }
}
