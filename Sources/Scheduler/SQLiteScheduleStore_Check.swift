// The integrity check, off the critical path (docs/store.md "What is checked when").
extension SQLiteScheduleStore {
    /// Checks the database at `path` with a read-only connection of its own, one table (with its indexes)
    /// per step: `PRAGMA quick_check(TABLE)` (`full`: `integrity_check`, which also compares every index
    /// with its table's rows). `between` runs after each step (a caller on another thread may yield there).
    /// Returns the problems found, each prefixed with its table; empty when the database is sound.
    /// Safe on any thread (SQLite serialises connections to one file; WAL readers never block the writer).
    /// Complexity: O(pages) in total, O(pages of one table) per step.
    public static func integrityCheck(path: String, full: Bool = false, between: () -> Void = {}) -> [String] {
        let db: SQLiteConnection
        do { db = try SQLiteConnection(openingExisting: path, readOnly: true) } catch { return ["open: \(error)"] }
        defer { db.close() }
        var problems: [String] = []
        do throws(SQLiteError) {
            try db.execute("PRAGMA busy_timeout = 5000")
            let tables = try db.statement("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY rootpage")
            var names: [String] = []
            while try tables.step() { names.append(tables.string(0)) }
            tables.reset()
            let pragma = full ? "integrity_check" : "quick_check"
            for name in names {
                // schedd's table names are plain identifiers ([a-z_0-9]); sqlite_* ones too.
                guard name.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) })
                else { continue }
                let check = try db.statement("PRAGMA \(pragma)(\(name))")
                while try check.step() {
                    let line = check.string(0)
                    if line != "ok" { problems.append("\(name): \(line)") }
                }
                check.reset()
                between()
            }
        } catch {
            problems.append("\(error)")
        }
        return problems
    }
}
