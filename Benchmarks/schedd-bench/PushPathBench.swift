// `schedd-bench pushpath [COUNT]`: the engine side of one `Push(s)` call as the daemon runs it — decode the
// push text (`PushDecoder`), one group commit holding one group member (`Engine.group` / `groupMember`, a
// savepoint), `Engine.push`, the outcome serialized as the reply's JSON — once per push, COUNT unique
// one-shots into a fresh SQLite store (WAL, synchronous=FULL). Prints CPU per push (getrusage: user and
// system) and, as the baseline in the same run, raw sqlite3 committing the same rows one per transaction.
// `pushPathLoop` is a separate function so that a profiler can be restricted to it
// (`valgrind --tool=callgrind --toggle-collect='*pushPathLoop*'`).
import CSQLite
import Glibc
import SchedCalendar
import Scheduler
import ScheddCrypto
import SystemZones

func pushPathBenchmark(_ args: [String]) {
    let count = args.first.flatMap { Int($0) } ?? 5_000
    var template = Array("/tmp/schedd-bench-pushpath-XXXXXX".utf8CString)
    guard let dirPointer = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        print("pushpath: cannot create a temporary directory"); return
    }
    let directory = String(cString: dirPointer)
    defer { _ = system("rm -rf '\(directory)'") }
    let now = Instant(seconds: 1_780_000_000)
    let texts = (0..<count).map { pushPathText($0, due: now.adding(seconds: 86_400 + Int64($0) * 7)) }
    print("pushpath: \(count) Push texts, decode + group(groupMember(push)) + reply JSON, one commit each, in \(directory)")
    do {
        let engine = try Engine(databasePath: directory + "/ours.db", notifier: NullNotifier(), deviceZone: .utc,
                                zones: ZoneDatabase.shared, now: now)
        let before = cpuUsage()
        let scheduled = pushPathLoop(engine, texts, now: now)
        let after = cpuUsage()
        engine.close()
        guard scheduled == count else { print("pushpath: \(scheduled) of \(count) scheduled"); return }
        let user = (after.user - before.user) / Double(count) * 1e6, system = (after.system - before.system) / Double(count) * 1e6
        print("  engine: user \(format(user)) us, system \(format(system)) us per push")
        let raw = rawCommitPerRow(directory + "/raw.db", texts.count, now: now)
        print("  raw sqlite3, one row per transaction: user \(format(raw.user)) us, system \(format(raw.system)) us per row")
        printResult("pushpath_user_cpu", ours: user, baseline: raw.user, unit: "us")
    } catch {
        print("pushpath: \(error)")
    }
}

/// Applies each push text as the daemon's group commit applies one `Push` call; returns how many were scheduled.
@inline(never)
func pushPathLoop(_ engine: Engine, _ texts: [String], now: Instant) -> Int {
    var scheduled = 0
    for text in texts {
        guard let push = try? PushDecoder.decode(Array(text.utf8), zones: engine.zones) else { continue }
        let reply = try? engine.group { () throws(EngineError) -> String in
            try engine.groupMember { () throws(EngineError) -> String in
                let outcomes = try engine.push(push, now: now)
                if outcomes.first?.status == .scheduled { scheduled += 1 }
                return JSONValue.array(outcomes.map { o in
                    JSONValue.object([JSONMember("id", .string(o.id)), JSONMember("status", .string(o.status.rawValue)),
                                      JSONMember("next", o.next.map { .string($0.rfc3339) } ?? .null)])
                }).serialized()
            }
        }
        if reply == nil { scheduled -= 1 }
    }
    return scheduled
}

/// Push text `i`: the rows `scripts/bench/common.sh gen_pushes … oneshot` writes.
func pushPathText(_ i: Int, due: Instant) -> String {
    #"{"bk":{"local":{"id":"p_\#(i / 10):s\#(i % 10)","title":"Reminder \#(i)","body":"Your lesson \#(i % 97) is waiting. Keep your streak going!","data":{"deepLink":"app://lesson/\#(i % 97)","n":\#(i)},"at":"\#(due.rfc3339)"}}}"#
}

/// The same number of rows, raw prepared INSERTs into the same schema (v6 columns: app number, digest blob;
/// the triggers run as for the engine), one transaction (one fsync) each, with the app's `pending_counts` upsert
/// that every transaction of the daemon's store makes (the quota's counts; `scripts/bench/pushrate.sh`'s raw
/// one-row-per-transaction baseline makes it too). Digests are computed before the clock starts. Any failure is
/// reported (a baseline that silently inserts nothing is no baseline). `scripts/bench/callcpu.sh` quotes its user
/// CPU as the floor under a Push's: SQLite's own cost of committing the row.
private func rawCommitPerRow(_ path: String, _ count: Int, now: Instant) -> (user: Double, system: Double) {
    func fail(_ what: String, _ db: OpaquePointer?) -> (user: Double, system: Double) {
        print("pushpath: raw baseline: \(what): \(db.map { String(cString: sqlite3_errmsg($0)) } ?? "no connection")")
        return (.nan, .nan)
    }
    guard (try? SQLiteScheduleStore(path: path).close()) != nil else { return fail("cannot create the schema", nil) }
    var db: OpaquePointer?
    guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else { return fail("open", db) }
    defer { sqlite3_close_v2(db) }
    guard sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA temp_store = MEMORY; "
                       + "INSERT INTO apps(name) VALUES('\(Engine.defaultApp)')", nil, nil, nil) == SQLITE_OK
    else { return fail("setup", db) }
    var statement: OpaquePointer?
    let sql = "INSERT INTO schedules(app, id, next_due, kind, digest, title, body, data) VALUES(1, ?1, ?2, 0, ?3, ?4, ?5, ?6)"
    guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { return fail("prepare", db) }
    defer { sqlite3_finalize(statement) }
    var counts: OpaquePointer?
    let countsSQL = "INSERT INTO pending_counts(app, n, bytes) VALUES (1, 1, ?1) "
        + "ON CONFLICT(app) DO UPDATE SET n = n + excluded.n, bytes = bytes + excluded.bytes"
    guard sqlite3_prepare_v2(db, countsSQL, -1, &counts, nil) == SQLITE_OK, let counts else { return fail("prepare counts", db) }
    defer { sqlite3_finalize(counts) }
    let digests = (0..<count).map { SHA256.digest(Array("fingerprint \($0)".utf8)) }
    var failure: String?
    let before = cpuUsage()
    for i in 0..<count {
        sqlite3_exec(db, "BEGIN IMMEDIATE", nil, nil, nil)
        sqlite3_bind_text(statement, 1, "p_\(i / 10):s\(i % 10)", -1, csqlite_transient())
        sqlite3_bind_int64(statement, 2, now.microseconds + Int64(86_400 + i * 7) * 1_000_000)
        _ = digests[i].withUnsafeBytes { sqlite3_bind_blob(statement, 3, $0.baseAddress, Int32($0.count), csqlite_transient()) }
        sqlite3_bind_text(statement, 4, "Reminder \(i)", -1, csqlite_transient())
        sqlite3_bind_text(statement, 5, "Your lesson \(i % 97) is waiting. Keep your streak going!", -1, csqlite_transient())
        sqlite3_bind_text(statement, 6, #"{"deepLink":"app://lesson/\#(i % 97)","n":\#(i)}"#, -1, csqlite_transient())
        if sqlite3_step(statement) != SQLITE_DONE, failure == nil { failure = String(cString: sqlite3_errmsg(db)) }
        sqlite3_reset(statement)
        sqlite3_bind_int64(counts, 1, 200)
        if sqlite3_step(counts) != SQLITE_DONE, failure == nil { failure = String(cString: sqlite3_errmsg(db)) }
        sqlite3_reset(counts)
        if sqlite3_exec(db, "COMMIT", nil, nil, nil) != SQLITE_OK, failure == nil { failure = String(cString: sqlite3_errmsg(db)) }
    }
    let after = cpuUsage()
    if let failure { print("pushpath: raw baseline: insert failed: \(failure)"); return (.nan, .nan) }
    return ((after.user - before.user) / Double(count) * 1e6, (after.system - before.system) / Double(count) * 1e6)
}
