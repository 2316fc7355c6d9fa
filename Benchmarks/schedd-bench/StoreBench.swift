// `schedd-bench store [COUNT] [BATCH]`: durable ingest through the engine's batched path versus the ceiling,
// raw sqlite3 inserts of the same rows into the same schema (v6 columns: app number, digest blob) in ONE
// transaction. Both use WAL and
// synchronous=FULL on files in a fresh temporary directory, in the same run.
import CSQLite
import Glibc
import SchedCalendar
import Scheduler
import ScheddCrypto
import SystemZones

func storeBenchmark(_ args: [String]) {
    let count = args.first.flatMap { Int($0) } ?? 100_000
    let batch = args.dropFirst().first.flatMap { Int($0) } ?? 1000
    var template = Array("/tmp/schedd-bench-store-XXXXXX".utf8CString)
    guard let dirPointer = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        print("store: cannot create a temporary directory"); return
    }
    let directory = String(cString: dirPointer)
    defer { _ = system("rm -rf '\(directory)'") }

    let now = Instant(seconds: 1_780_000_000)  // 2026-05-28T20:26:40Z
    let pushes = (0..<count).map { storeBenchPush($0, now: now) }
    print("store: \(count) one-shot pushes, engine batches of \(batch), synchronous=FULL, WAL, in \(directory)")

    // Ours: Engine.pushBatch, one group commit per batch (each push looked up for tombstones, duplicates
    // and replacements, inserted, and armed in the wheel).
    let oursSeconds: Double
    let oursCPU: Double
    do {
        let engine = try Engine(databasePath: directory + "/ours.db", notifier: NullNotifier(), deviceZone: .utc, zones: ZoneDatabase.shared,
                                now: now)
        var scheduled = 0
        let cpuBefore = cpuSeconds()
        let nanos = measureNanos {
            var start = 0
            while start < pushes.count {
                let end = min(start + batch, pushes.count)
                guard let outcomes = try? engine.pushBatch(Array(pushes[start..<end]), now: now) else {
                    print("store: pushBatch failed"); return
                }
                scheduled += outcomes.count { $0.first?.status == .scheduled }
                start = end
            }
        }
        guard scheduled == count, engine.pendingCount == count else {
            print("store: engine scheduled \(scheduled) of \(count)"); return
        }
        oursCPU = cpuSeconds() - cpuBefore
        engine.close()
        oursSeconds = Double(nanos) / 1e9
    } catch {
        print("store: \(error)"); return
    }

    // Ceiling: the same rows, raw prepared INSERTs in one transaction on a database with the same schema.
    let ceilingSeconds: Double
    let ceilingCPU: Double
    do {
        let path = directory + "/raw.db"
        try SQLiteScheduleStore(path: path).close()  // creates the schema
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else {
            print("store: cannot open \(path)"); return
        }
        defer { sqlite3_close_v2(db) }
        sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA temp_store = MEMORY", nil, nil, nil)
        // Schema v6: the app is a number (`apps`), the digest a 32-byte blob. The rows' totals go into
        // `pending_counts` once per transaction, as the engine's store writes them (issue 35: `PendingCounts`
        // holds them; once per row before, by its insert or a trigger): without it the ceiling would skip
        // work every stored schedule needs. The digests and the rows' byte counts
        // are computed before the clock starts: the ceiling is SQLite's insert rate alone.
        sqlite3_exec(db, "INSERT INTO apps(name) VALUES('\(Engine.defaultApp)')", nil, nil, nil)
        let digests = pushes.map { SHA256.digest(Array(($0.local?.fingerprint ?? "").utf8)) }
        var statement: OpaquePointer?
        let sql = """
            INSERT INTO schedules(app, id, next_due, kind, digest, title, body, data) \
            VALUES(1, ?1, ?2, 0, ?3, ?4, ?5, ?6)
            """
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            print("store: prepare failed: \(String(cString: sqlite3_errmsg(db)))"); return
        }
        defer { sqlite3_finalize(statement) }
        var counts: OpaquePointer?
        let countsSQL = """
            INSERT INTO pending_counts(app, n, bytes) VALUES (1, ?1, ?2) \
            ON CONFLICT(app) DO UPDATE SET n = n + excluded.n, bytes = bytes + excluded.bytes
            """
        guard sqlite3_prepare_v2(db, countsSQL, -1, &counts, nil) == SQLITE_OK, let counts else {
            print("store: prepare failed: \(String(cString: sqlite3_errmsg(db)))"); return
        }
        defer { sqlite3_finalize(counts) }
        // `StoreRowCoding.storedBytes` of a one-shot at a UTC instant (no zone, no detail): its `rowOverhead`, 64, plus its texts.
        let rowBytes = pushes.map { push -> Int64 in
            guard let l = push.local else { return 0 }
            return Int64(64 + l.id.utf8.count + l.title.utf8.count + (l.body?.utf8.count ?? 0)
                         + (l.dataJSON?.utf8.count ?? 0))
        }
        var failure: String?
        var stored: Int64 = 0, storedBytes: Int64 = 0
        let cpuBefore = cpuSeconds()
        let nanos = measureNanos {
            sqlite3_exec(db, "BEGIN IMMEDIATE", nil, nil, nil)
            for (index, (push, digest)) in zip(pushes, digests).enumerated() {
                guard let local = push.local, case .at(.fixed(let due, _)) = local.trigger else { continue }
                bindText(statement, 1, local.id)
                sqlite3_bind_int64(statement, 2, due.microseconds)
                _ = digest.withUnsafeBytes { sqlite3_bind_blob(statement, 3, $0.baseAddress, Int32($0.count), csqlite_transient()) }
                bindText(statement, 4, local.title)
                bindText(statement, 5, local.body)
                bindText(statement, 6, local.dataJSON)
                if sqlite3_step(statement) != SQLITE_DONE, failure == nil {
                    failure = String(cString: sqlite3_errmsg(db))  // read before the reset clears it
                }
                sqlite3_reset(statement)
                stored += 1
                storedBytes += rowBytes[index]
            }
            // The totals once per transaction, as the engine's store writes them (`PendingCounts` holds them).
            sqlite3_bind_int64(counts, 1, stored)
            sqlite3_bind_int64(counts, 2, storedBytes)
            if sqlite3_step(counts) != SQLITE_DONE, failure == nil { failure = String(cString: sqlite3_errmsg(db)) }
            sqlite3_reset(counts)
            if sqlite3_exec(db, "COMMIT", nil, nil, nil) != SQLITE_OK, failure == nil {
                failure = String(cString: sqlite3_errmsg(db))
            }
        }
        ceilingCPU = cpuSeconds() - cpuBefore
        if let failure { print("store: raw insert failed: \(failure)"); return }
        ceilingSeconds = Double(nanos) / 1e9
    } catch {
        print("store: \(error)"); return
    }

    let ours = Double(count) / oursSeconds
    let ceiling = Double(count) / ceilingSeconds
    print("  engine pushBatch (\(count / max(1, batch)) commits): \(format(oursSeconds)) s (CPU \(format(oursCPU)) s), "
        + "\(format(ours)) rows/s")
    print("  raw sqlite3, one transaction:   \(format(ceilingSeconds)) s (CPU \(format(ceilingCPU)) s), "
        + "\(format(ceiling)) rows/s")
    printResult("store_ingest", ours: ours, baseline: ceiling, unit: "rows/s", higherIsBetter: true)
}

/// Push number `i`: a fixed one-shot a day or more ahead with a typical title, body and data.
private func storeBenchPush(_ i: Int, now: Instant) -> Push {
    benchmarkPush(i, due: now.adding(seconds: 86_400 + Int64(i % 100_000) * 7))
}

/// Push number `i`, a fixed one-shot at `due` with a typical id, title, body and data (the rows the
/// store and restore benchmarks load).
func benchmarkPush(_ i: Int, due: Instant) -> Push {
    let id = "run_\(i / 10):step\(i % 10)"
    let title = "Reminder \(i)"
    let body = "Your lesson \(i % 97) is waiting. Keep your streak going!"
    let data = #"{"deepLink":"app://lesson/\#(i % 97)","n":\#(i)}"#
    let fingerprint = #"{"at":"\#(due.rfc3339)","body":"\#(body)","data":\#(data),"id":"\#(id)","title":"\#(title)"}"#
    let local = LocalSchedule(id: id, trigger: .at(.fixed(due, offsetSeconds: 0)), title: title, body: body,
                              dataJSON: data, fingerprint: fingerprint)
    return Push(local: local)
}

/// User + system CPU seconds of this process so far (`getrusage`): with `synchronous=FULL` the rest of the
/// wall time is spent waiting for the disk.
private func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

private func bindText(_ statement: OpaquePointer, _ index: Int32, _ value: String?) {
    guard let value else { sqlite3_bind_null(statement, index); return }
    sqlite3_bind_text(statement, index, value, -1, csqlite_transient())
}
