import SchedCalendar

// The UnifiedPush replay window (schema 11, table `push_replays`; PushReplayWindow).
extension SQLiteScheduleStore: PushReplayWindow {
    public func isReplay(app: String, digest: [UInt8]) throws(StoreError) -> Bool {
        try sql { () throws(SQLiteError) -> Bool in
            let st = try db.statement("SELECT 1 FROM push_replays WHERE app = ?1 AND digest = ?2")
            defer { st.reset() }
            st.bind(1, try lookupApp(app))
            st.bind(2, blob: digest)
            return try st.step()
        }
    }

    public func recordDelivered(app: String, digest: [UInt8], at: Instant) throws(StoreError) {
        try transaction { () throws(StoreError) in
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
                trim.bind(2, Int64(Self.replayWindowSize))
                try trim.run()
            }
        }
    }

    public func replayWindowCount(app: String) throws(StoreError) -> Int {
        try sql { () throws(SQLiteError) -> Int in
            let st = try db.statement("SELECT count(*) FROM push_replays WHERE app = ?1")
            defer { st.reset() }
            st.bind(1, try lookupApp(app))
            return try st.step() ? Int(st.int64(0)) : 0
        }
    }
}
