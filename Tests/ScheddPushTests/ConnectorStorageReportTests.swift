import Foundation
import SchedCalendar
import ScheddBus
import ScheddCrypto
import TestPrerequisites
@testable import Scheduler
@testable import ScheddPush
import XCTest

/// The connector's own store writes — registration saves and deletes, the replay record of an invalid
/// push — reach the daemon's storage health through `PushConnector.StorageHooks` (CONTRACT §9, "Storage
/// failure"), as `RejectionRecorder`'s do (RejectionRecorderStorageTests): a failed write reports what
/// failed, naming the app, with SQLite's error, and the call still fails with the `.storage` error it
/// always did; a successful write reports success; a read reports nothing.
///
/// The same fixture as RejectionRecorderStorageTests (`StorageReportRecorder`): a real SQLite store made to
/// refuse writes with `PRAGMA query_only` (SQLITE_READONLY), a real event loop that is never run. A
/// `PushConnector` needs a bus connection, so a private dbus-daemon (`PrivateTestBus`) runs for each test; the
/// connector is never started (nothing served), and the methods under test are the ones its D-Bus
/// handlers call: `storeRegistration` (Register's store part), `unregisterApp`, `newEndpoint`, and
/// `MessageIntake.rememberInvalid` (Message, a body that decrypts but is not a valid push).
final class ConnectorStorageReportTests: XCTestCase {
    private let app = "org.example.Reminders"
    private let distributor = "org.unifiedpush.Distributor.test"
    private let distributorOwner = ":1.99"
    private let t0 = Instant(seconds: 1_772_359_200)  // 2026-03-01T10:00:00Z
    private var directory = ""
    private var store: SQLiteScheduleStore?
    private var bus: PrivateTestBus?
    /// What reached the hooks.
    private let storage = StorageReportRecorder()
    private var reports: [String] { storage.reports }
    private var codes: [SQLiteResultCode?] { storage.codes }
    /// What the connector logged through the host's `log`.
    private var logged: [String] = []

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "schedd-connector-storage-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        store = try SQLiteScheduleStore(path: directory + "/s.db")
    }

    override func tearDown() {
        store?.close()
        bus?.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    // MARK: - Fixture

    private func makeHost() -> PushConnector.Host {
        PushConnector.Host(
            serviceName: "org.schedd.Test", objectPath: "/org/schedd/Test", preferredDistributor: nil,
            now: { [t0] in t0 },
            apply: { _, _, _ in .rejected("not used here") },
            log: { [unowned self] _, line in logged.append(line) },
            storage: storage.hooks,
            resolveApp: { _, declared throws(PushConnectorError) in PushConnector.PushCaller(app: declared, seesEveryApp: false) },
            refusal: { _ in nil },
            admit: { call, handler in handler(call) },
            subscribe: { _, _ in },
            signalDestinations: { _ in [] })
    }

    private func makeConnector(_ store: SQLiteScheduleStore) throws -> PushConnector {
        if bus == nil { bus = try PrivateTestBus() }
        let connection = try BusConnection.open(.address(bus!.address), description: "connector-storage-test")
        return PushConnector(bus: connection, loop: try EventLoop(), store: store, host: makeHost())
    }


    private func saveRegistration(_ store: SQLiteScheduleStore, distributor: String? = nil) throws {
        try store.registrations.save(PushRegistrationRecord(
            app: app, token: "token-1", description: "Reminders", distributor: distributor, endpoint: nil,
            privateKey: "k", publicKey: "p", authSecret: "a", created: t0, updated: t0))
    }

    /// Asserts `call` fails with the `.storage` error and SQLite's message, as a store failure always did.
    private func assertFailsWithStorageError<T>(_ call: @autoclosure () throws -> T, _ what: String,
                                                file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try call(), what, file: file, line: line) { error in
            let failure = error as? PushConnectorError
            XCTAssertEqual(failure?.kind, .storage, "\(error)", file: file, line: line)
            XCTAssertEqual(failure?.busName, "org.schedd.UnifiedPush1.Error.Storage", file: file, line: line)
            XCTAssertTrue(failure?.message.contains("readonly") == true, "SQLite's message: \(error)", file: file, line: line)
        }
    }

    // MARK: - Register

    func testRegister_newRegistrationSaveFails_reportsItNamingTheApp_andFailsAsBefore_thenItsRetryReportsSuccess() throws {
        let store = try XCTUnwrap(store)
        let connector = try makeConnector(store)
        try store.refuseWrites(true)
        assertFailsWithStorageError(try connector.storeRegistration(app, description: "Reminders"), "Register on a refused write")
        XCTAssertEqual(reports, ["failed: saving the new push registration of \(app)"])
        XCTAssertEqual(codes.last??.primary, .readOnly, "the store's error reaches the hook with its SQLite code")
        XCTAssertEqual(logged, [], "the storage health logs the failure; the connector does not")
        XCTAssertNil(try store.registrations.record(app: app), "nothing stored")

        try store.refuseWrites(false)
        let record = try connector.storeRegistration(app, description: "Reminders")  // the app calls Register again
        XCTAssertEqual(reports, ["failed: saving the new push registration of \(app)", "succeeded"])
        XCTAssertEqual(try store.registrations.record(app: app)?.token, record.token)
        XCTAssertEqual(logged, ["new push registration for \(app)"])
    }

    func testRegister_newDescriptionSaveFails_reportsItNamingTheApp_andARegisterThatWritesNothingReportsNothing() throws {
        let store = try XCTUnwrap(store)
        try saveRegistration(store)
        let connector = try makeConnector(store)
        try store.refuseWrites(true)
        _ = try connector.storeRegistration(app, description: "Reminders")
        _ = try connector.storeRegistration(app, description: "")
        XCTAssertEqual(reports, [], "a Register that only reads reports nothing (a read says nothing of the disk)")

        assertFailsWithStorageError(try connector.storeRegistration(app, description: "Reminders and alarms"),
                                    "Register with a new description on a refused write")
        XCTAssertEqual(reports, ["failed: saving the new description of the push registration of \(app)"])
        XCTAssertEqual(codes.last??.primary, .readOnly)

        try store.refuseWrites(false)
        _ = try connector.storeRegistration(app, description: "Reminders and alarms")
        XCTAssertEqual(reports.last, "succeeded")
        XCTAssertEqual(try store.registrations.record(app: app)?.description, "Reminders and alarms")
        XCTAssertEqual(logged, [])
    }

    // MARK: - Unregister

    func testUnregister_deleteFails_reportsItNamingTheApp_andFailsAsBefore_keepingTheRegistration_thenReportsSuccess() throws {
        let store = try XCTUnwrap(store)
        try saveRegistration(store)
        let connector = try makeConnector(store)
        try store.refuseWrites(true)
        assertFailsWithStorageError(try connector.unregisterApp(app), "Unregister on a refused write")
        XCTAssertEqual(reports, ["failed: deleting the push registration of \(app)"])
        XCTAssertEqual(codes.last??.primary, .readOnly)
        XCTAssertEqual(logged, [], "neither the failure nor an 'unregistered' line")

        try store.refuseWrites(false)
        XCTAssertNotNil(try store.registrations.record(app: app), "still registered after the failed delete")
        _ = try connector.unregisterApp(app)
        XCTAssertEqual(reports, ["failed: deleting the push registration of \(app)", "succeeded"])
        XCTAssertNil(try store.registrations.record(app: app))
        XCTAssertEqual(logged, ["\(app) unregistered from pushes"])
    }

    // MARK: - A distributor's NewEndpoint

    func testNewEndpoint_saveFails_reportsItNamingTheApp_andFailsAsBefore_thenReportsSuccess() throws {
        let store = try XCTUnwrap(store)
        try saveRegistration(store, distributor: distributor)
        let connector = try makeConnector(store)
        connector.distributors.listed(distributor)
        connector.distributors.learned(owner: distributorOwner, of: distributor)
        try store.refuseWrites(true)
        assertFailsWithStorageError(try connector.newEndpoint(token: "token-1", endpoint: "https://push.example/1",
                                                              sender: distributorOwner), "NewEndpoint on a refused write")
        XCTAssertEqual(reports, ["failed: saving the new push endpoint of \(app)"])

        try store.refuseWrites(false)
        try connector.newEndpoint(token: "token-1", endpoint: "https://push.example/1", sender: distributorOwner)
        XCTAssertEqual(reports.last, "succeeded")
        XCTAssertEqual(try store.registrations.record(app: app)?.endpoint, "https://push.example/1")
    }

    // MARK: - Message: a body that decrypts but is not a valid push

    func testInvalidPush_replayRecordFails_reportsItNamingTheApp_andFailsAsBefore_thenReportsSuccess() throws {
        let store = try XCTUnwrap(store)
        try saveRegistration(store)
        let host = makeHost()
        let intake = MessageIntake(store: store, host: host,
                                   rejections: RejectionRecorder(store: store, loop: try EventLoop(), log: host.log,
                                                                 storage: host.storage))
        let digest = SHA256.digest(Array("an encrypted body".utf8))
        try store.refuseWrites(true)
        assertFailsWithStorageError(try intake.rememberInvalid(app: app, digest: digest, at: t0),
                                    "the replay record on a refused write")
        XCTAssertEqual(reports, ["failed: recording an invalid push of \(app) in its replay window"])
        XCTAssertEqual(codes.last??.primary, .readOnly)
        XCTAssertEqual(logged, [])

        try store.refuseWrites(false)
        XCTAssertFalse(try store.pushReplays.contains(app: app, digest: digest), "the failed record wrote nothing")
        try intake.rememberInvalid(app: app, digest: digest, at: t0)
        XCTAssertEqual(reports.last, "succeeded")
        XCTAssertTrue(try store.pushReplays.contains(app: app, digest: digest))
    }
}
