import SchedCalendar

/// The UnifiedPush replay window (CONTRACT §8: a message delivered twice changes nothing the second time;
/// docs/receiving-pushes.md "Replays"), table `push_replays` (schema 11): per app, the digests of the
/// latest `windowSize` messages that decrypted with its registration's keys. Its rows count in the app's
/// byte quota (`pending_counts.kept`, trigger `kept_replay_*`) and go with the registration.
public final class PushReplayTable: StoreTable {
    let connection: StoreConnection
    /// Digests kept per app: 1,000 × `StoreKeptBytes.replay` (128 bytes) = at most 128,000 bytes of the
    /// app's quota. A message older than the newest 1,000 an app received is judged by the push's own
    /// idempotency only (CONTRACT §1).
    public static let windowSize = 1_000

    init(_ connection: StoreConnection) { self.connection = connection }

    /// Whether `digest` is in `app`'s window. One index seek.
    public func contains(app: String, digest: [UInt8]) throws(StoreError) -> Bool {
        try sql { () throws(SQLiteError) -> Bool in
            let st = try db.statement("SELECT 1 FROM push_replays WHERE app = ?1 AND digest = ?2")
            defer { st.reset() }
            st.bind(1, try lookupApp(app))
            st.bind(2, blob: digest)
            return try st.step()
        }
    }

    /// Adds `digest` to `app`'s window (nothing when it is there already) and removes the oldest beyond
    /// `windowSize`. Two statements: the caller runs it inside `SQLiteScheduleStore.transaction`. O(log n).
    public func record(app: String, digest: [UInt8], at: Instant) throws(StoreError) {
        try sql { () throws(SQLiteError) in
            let n = try internApp(app)
            // The next number of the app: one index seek on push_replays_by_seq.
            let insert = try db.statement("""
                INSERT OR IGNORE INTO push_replays(app, digest, seq, at)
                VALUES(?1, ?2, coalesce((SELECT max(seq) FROM push_replays WHERE app = ?1), 0) + 1, ?3)
                """)
            insert.bind(1, n)
            insert.bind(2, blob: digest)
            insert.bind(3, at.microseconds)
            try insert.run()
            guard db.changes > 0 else { return }
            // The oldest beyond the window go: at most one per insert once the window is full (a range
            // of push_replays_by_seq).
            let trim = try db.statement("""
                DELETE FROM push_replays WHERE app = ?1
                    AND seq <= (SELECT max(seq) FROM push_replays WHERE app = ?1) - ?2
                """)
            trim.bind(1, n)
            trim.bind(2, Int64(Self.windowSize))
            try trim.run()
        }
    }

    /// The number of digests in `app`'s window (tests, diagnostics).
    public func count(app: String) throws(StoreError) -> Int {
        try sql { () throws(SQLiteError) -> Int in
            let st = try db.statement("SELECT count(*) FROM push_replays WHERE app = ?1")
            defer { st.reset() }
            st.bind(1, try lookupApp(app))
            return try st.step() ? Int(st.int64(0)) : 0
        }
    }
}
