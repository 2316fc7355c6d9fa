@testable import Scheduler
@testable import ScheddPush

/// What reached a `PushConnector.StorageHooks` — the daemon's storage health as the connector's writes
/// tell it — in order, for the tests of those reports (RejectionRecorderStorageTests,
/// ConnectorStorageReportTests).
final class StorageReportRecorder {
    /// "failed: <what>" or "succeeded", in order.
    private(set) var reports: [String] = []
    /// The SQLite code of each failure reported.
    private(set) var codes: [SQLiteResultCode?] = []

    /// Hooks that record here.
    var hooks: PushConnector.StorageHooks {
        PushConnector.StorageHooks(
            failed: { [unowned self] what, error in reports.append("failed: \(what)"); codes.append(error.sqliteCode) },
            succeeded: { [unowned self] in reports.append("succeeded") })
    }
}

extension SQLiteScheduleStore {
    /// Makes the store refuse every write (`PRAGMA query_only`: SQLITE_READONLY), or take them again.
    func refuseWrites(_ on: Bool) throws {
        try db.execute("PRAGMA query_only = \(on ? 1 : 0)")
    }
}
