import Foundation
import SchedCalendar
import ScheddBus
@testable import Scheduler
@testable import ScheddPush
import XCTest

/// RejectionRecorder's writes reach the daemon's storage health through `PushConnector.StorageHooks`
/// (CONTRACT §9, "Storage failure"): a failed write reports what failed and SQLite's error, a later
/// successful one reports success, and the recorder logs neither itself (the storage health owns that
/// line). A real SQLite store, made to refuse writes with `PRAGMA query_only` (SQLITE_READONLY), and a
/// real event loop that is never run: `flush` is called as the timer would call it.
final class RejectionRecorderStorageTests: XCTestCase {
    private let app = "org.example.Reminders"
    private let t0 = Instant(seconds: 1_772_359_200)  // 2026-03-01T10:00:00Z
    private var directory = ""
    private var store: SQLiteScheduleStore?
    /// What reached the hooks.
    private let storage = StorageReportRecorder()
    private var reports: [String] { storage.reports }
    private var codes: [SQLiteResultCode?] { storage.codes }
    /// What the recorder logged through the connector's `log`.
    private var logged: [String] = []

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "schedd-rejections-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let store = try SQLiteScheduleStore(path: directory + "/s.db")
        self.store = store
        try store.registrations.save(PushRegistrationRecord(
            app: app, token: "token-1", description: "", distributor: nil, endpoint: nil,
            privateKey: "k", publicKey: "p", authSecret: "a", created: t0, updated: t0))
    }

    override func tearDown() {
        store?.close()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func makeRecorder(_ store: SQLiteScheduleStore) throws -> RejectionRecorder {
        RejectionRecorder(store: store, loop: try EventLoop(), log: { [unowned self] _, line in logged.append(line) },
                          storage: storage.hooks)
    }


    private func rejection(_ n: Int) -> PushRejection {
        PushRejection(at: t0.adding(microseconds: Int64(n) * 100_000), messageID: "g\(n)", reason: "does not decrypt")
    }

    private func rejectedCount(_ store: SQLiteScheduleStore) throws -> Int64? { try store.registrations.record(app: app)?.rejected }

    func testFailedFlush_reportsWhatFailedToTheStorageHealth_andALaterFlushReportsSuccess_withoutALogLineOfItsOwn() throws {
        let store = try XCTUnwrap(store)
        let recorder = try makeRecorder(store)
        try recorder.record(app: app, rejection(0))  // the app's first: written at once
        XCTAssertEqual(reports, ["succeeded"])
        try recorder.record(app: app, rejection(1))  // within the interval: held
        try recorder.record(app: app, rejection(2))
        XCTAssertEqual(reports, ["succeeded"], "a held rejection writes nothing")

        try store.refuseWrites(true)
        recorder.flush()
        XCTAssertEqual(reports.count, 2, "\(reports)")
        XCTAssertEqual(reports.last, "failed: recording the held rejected pushes of 1 app(s) (kept in memory; next attempt in 1 s)")
        XCTAssertEqual(codes.last??.primary, .readOnly, "the store's error reaches the hook with its SQLite code")
        XCTAssertEqual(logged, [], "the storage health logs the failure; the recorder does not log it again")
        XCTAssertEqual(try rejectedCount(store), 1, "the failed flush wrote nothing")
        XCTAssertEqual(try recorder.merged(XCTUnwrap(store.registrations.record(app: app))).rejected, 3, "still held")

        recorder.flush()  // the back-off's next attempt, still refused: reported again, 2 s this time
        XCTAssertEqual(reports.last, "failed: recording the held rejected pushes of 1 app(s) (kept in memory; next attempt in 2 s)")

        try store.refuseWrites(false)
        recorder.flush()
        XCTAssertEqual(reports.count, 4, "\(reports)")
        XCTAssertEqual(reports.last, "succeeded", "a successful flush ends the failure period")
        XCTAssertEqual(logged, [], "nor does it log the recovery: the storage health does")
        XCTAssertEqual(try rejectedCount(store), 3)
    }

    func testFailedImmediateWrite_reportsWhatFailed_andThrowsTheStorageError_thenItsRetryReportsSuccess() throws {
        let store = try XCTUnwrap(store)
        let recorder = try makeRecorder(store)
        try store.refuseWrites(true)
        XCTAssertThrowsError(try recorder.record(app: app, rejection(0))) { error in
            XCTAssertEqual((error as? PushConnectorError)?.kind, .storage, "\(error)")
        }
        XCTAssertEqual(reports, ["failed: recording a rejected push of \(app)"])
        XCTAssertEqual(codes.last??.primary, .readOnly)
        XCTAssertEqual(logged, [])

        try store.refuseWrites(false)
        try recorder.record(app: app, rejection(0))  // the distributor delivers it again
        XCTAssertEqual(reports, ["failed: recording a rejected push of \(app)", "succeeded"])
        XCTAssertEqual(try rejectedCount(store), 1)
    }
}
