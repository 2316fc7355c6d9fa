import SchedCalendar

extension SQLiteScheduleStore {
    /// The earliest `next_due` among schedules whose extras say `wake: true`: a seek on the partial index
    /// `schedules_wake` (schema step 9; the WHERE term is the index's own, word for word, so SQLite uses
    /// it). Each candidate's detail is decoded, so another member that merely contains the text (an icon
    /// named `"wake":true`) is passed over. O(log n + candidates passed over).
    public func earliestWake() throws(StoreError) -> Instant? {
        try sql { () throws(SQLiteError) -> Instant? in
            let st = try db.statement("""
                SELECT next_due, detail FROM schedules WHERE detail LIKE '%"wake":true%' ORDER BY next_due
                """)
            defer { st.reset() }
            while try st.step() {
                let pairs = StoreCoding.decodeList(st.optionalString(1) ?? "")
                var i = 0
                while i + 1 < pairs.count {
                    if pairs[i] == "x", StoreCoding.decodeExtras(pairs[i + 1]).wake {
                        return Instant(microseconds: st.int64(0))
                    }
                    i += 2
                }
            }
            return nil
        }
    }
}
