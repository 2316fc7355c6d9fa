import Glibc
import XCTest
@testable import Scheduler

/// The daemon's checkpoints off the committing connection (docs/store.md "Checkpoints").
final class StoreCheckpointTests: XCTestCase {
    var directory = ""
    var path: String { directory + "/schedd.db" }

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { removeTree(directory) }

    /// A store whose checkpoints are handed to a new checkpointer of `checkpointPath` (default: the store's).
    private func handedOver(checkpointPath: String? = nil, threshold: Int = 1000) throws
        -> (store: SQLiteScheduleStore, checkpointer: WALCheckpointer) {
        let store = try SQLiteScheduleStore(path: path)
        let checkpointer = WALCheckpointer(path: checkpointPath ?? path, threshold: threshold)
        store.handCheckpoints(to: checkpointer)
        return (store, checkpointer)
    }

    /// `commits` commits of `rowsEach` rows each (8,000-byte blobs: about one page per row).
    private func write(_ store: SQLiteScheduleStore, commits: Int, rowsEach: Int) throws {
        try store.db.execute("CREATE TABLE IF NOT EXISTS filler(x BLOB)")
        for _ in 0..<commits {
            try store.db.execute("""
                BEGIN IMMEDIATE;
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rowsEach))
                INSERT INTO filler SELECT randomblob(8000) FROM n;
                COMMIT
                """)
        }
    }

    func testHandedOver_commitsNeverCheckpoint_theCheckpointerCopiesEverything_andTheLogRestarts() throws {
        let (store, checkpointer) = try handedOver()
        XCTAssertEqual(checkpointer.checkpointIfDue(), .idle)
        // 1,500 pages in 30 commits: SQLite's autocheckpoint would have run at 1,000 and restarted the log.
        try write(store, commits: 30, rowsEach: 50)
        let inLog = checkpointer.framesInLog
        XCTAssertGreaterThan(inLog, 1500, "the store's own commits must not checkpoint")
        XCTAssertEqual(checkpointer.checkpointIfDue(), .checkpointed(log: inLog, copied: inLog))
        XCTAssertEqual(checkpointer.checkpointIfDue(), .idle, "nothing new since the last attempt")
        try write(store, commits: 1, rowsEach: 1)
        XCTAssertLessThan(checkpointer.framesInLog, 10, "the next commit restarts the fully copied log")
        checkpointer.close()
        store.close()
        XCTAssertEqual(access(path + "-wal", F_OK), -1, "the store's connection, closed last, removes the log")
        let reopened = try SQLiteScheduleStore(path: path)
        XCTAssertFalse(reopened.openedAfterUncleanShutdown)
        let count = try reopened.db.statement("SELECT count(*) FROM filler")
        XCTAssertTrue(try count.step())
        XCTAssertEqual(count.int64(0), 1501)
        count.reset()
        reopened.close()
    }

    /// A checkpoint beside a busy writer never sees every frame copied, and the log restarts only then:
    /// the committing connection copies a short tail itself.
    func testAShortTailLeftByTheCheckpointer_isCopiedByTheNextCommit_andTheLogRestarts() throws {
        let (store, checkpointer) = try handedOver()
        try write(store, commits: 30, rowsEach: 50)
        XCTAssertEqual(checkpointer.checkpointIfDue(), .checkpointed(log: checkpointer.framesInLog, copied: checkpointer.framesInLog))
        try write(store, commits: 1, rowsEach: 1)  // restarts the log
        try write(store, commits: 25, rowsEach: 50)
        // As if the checkpointer had copied all but 60 frames while these commits went on.
        checkpointer.frames.recordCopied(checkpointer.framesInLog - 60)
        XCTAssertEqual(checkpointer.frames.uncopied, 60)
        // A commit of the store's (its `transaction`) copies the tail, and what it wrote, itself.
        try store.transaction { () throws(StoreError) in
            try store.sql { () throws(SQLiteError) in try store.db.execute("INSERT INTO filler VALUES (x'00')") }
        }
        XCTAssertEqual(checkpointer.frames.uncopied, 0)
        try write(store, commits: 1, rowsEach: 1)
        XCTAssertLessThan(checkpointer.framesInLog, 10, "restarted")
        checkpointer.close()
        store.close()
    }

    func testBelowTheThreshold_idle() throws {
        let (store, checkpointer) = try handedOver()
        try write(store, commits: 1, rowsEach: 20)
        XCTAssertEqual(checkpointer.checkpointIfDue(), .idle)
        checkpointer.close()
        store.close()
    }

    func testAFailingCheckpoint_isReported_andTriedAgainWithANewConnection() throws {
        let (store, checkpointer) = try handedOver(checkpointPath: directory + "/missing.db", threshold: 10)
        try write(store, commits: 1, rowsEach: 20)
        guard case .failed = checkpointer.checkpointIfDue() else { return XCTFail("a checkpoint of a missing file fails") }
        try write(store, commits: 1, rowsEach: 1)
        guard case .failed = checkpointer.checkpointIfDue() else { return XCTFail("tried again") }
        checkpointer.close()
        store.close()
    }
}
