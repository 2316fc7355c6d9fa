import SchedCalendar
import Scheduler
import SystemZones
import XCTest

/// `Engine.init` refuses limits that make no sense, naming the one it refuses, and opens with the smallest
/// that do: the daemon's option parser checks them too, but the engine is a library (the test kit, the
/// benchmarks) and must not run with a quota that refuses everything or a negative fold threshold.
final class EngineLimitsTests: XCTestCase {
    var directory = ""
    let t0 = utc(2026, 3, 8, 5)

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { removeTree(directory) }

    private func open(_ name: String, grace: Int64 = Engine.defaultGraceSeconds, pending: Int = Engine.defaultMaxPendingPerApp,
                      bytes: Int = Engine.defaultMaxBytesPerApp, fold: Int = Engine.defaultFoldThreshold) throws(EngineError) -> Engine {
        try Engine(databasePath: directory + "/" + name + ".db", notifier: ScriptedNotifier(), deviceZone: .utc,
                   defaultGraceSeconds: grace, zones: ZoneDatabase.shared, maxPendingPerApp: pending,
                   maxBytesPerApp: bytes, foldThreshold: fold, now: t0)
    }

    private func assertRefused(_ name: String, _ rule: String, _ make: () throws(EngineError) -> Engine,
                               line: UInt = #line) {
        do {
            let engine = try make()
            engine.close()
            XCTFail("\(name): opened", line: line)
        } catch {
            XCTAssertEqual(error.kind, .invalidArgument, "\(name): \(error)", line: line)
            XCTAssertTrue(error.message.contains(rule), "\(name): \(error.message)", line: line)
        }
    }

    func testNonsenseLimits_areRefused_namingTheLimit() {
        assertRefused("grace -1", "default grace must be ≥ 0") { () throws(EngineError) in try open("g", grace: -1) }
        assertRefused("pending 0", "max pending per app must be ≥ 1") { () throws(EngineError) in try open("p", pending: 0) }
        assertRefused("bytes 0", "max bytes per app must be ≥ 1") { () throws(EngineError) in try open("b", bytes: 0) }
        assertRefused("bytes -5", "max bytes per app must be ≥ 1") { () throws(EngineError) in try open("b2", bytes: -5) }
        assertRefused("fold -1", "the fold threshold must be ≥ 0") { () throws(EngineError) in try open("f", fold: -1) }
    }

    func testTheSmallestSensibleLimits_open_andHold() throws {
        let engine = try open("min", grace: 0, pending: 1, bytes: 1, fold: 0)
        defer { engine.close() }
        XCTAssertEqual(engine.maxPendingPerApp, 1)
        XCTAssertEqual(engine.maxBytesPerApp, 1)
        XCTAssertEqual(engine.foldThreshold, 0)
        // One byte holds no schedule: the byte quota refuses the first push, naming its bound.
        let local = makeLocal("p1", atFixed(t0.adding(seconds: 600)))
        XCTAssertThrowsError(try engine.push(pushLocal(local), now: t0)) { error in
            XCTAssertEqual((error as? EngineError)?.kind, .quotaExceeded, "\(error)")
        }
    }
}
