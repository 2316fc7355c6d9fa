@testable import Scheduler

/// SQLite's plan for `sql` on `db` (the detail column of EXPLAIN QUERY PLAN, joined by "; "), for the
/// tests that check a query reads an index range rather than scanning a table (docs/store.md).
func queryPlan(_ db: SQLiteConnection, _ sql: String) throws -> String {
    let st = try db.statement("EXPLAIN QUERY PLAN " + sql)
    defer { st.reset() }
    var lines: [String] = []
    while try st.step() { lines.append(st.string(3)) }
    return lines.joined(separator: "; ")
}
