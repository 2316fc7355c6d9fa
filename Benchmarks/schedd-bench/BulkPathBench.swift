// `schedd-bench bulkpath FILE [BATCH]`: the daemon's side of a bulk load without the bus — each BATCH
// (1,000) lines of the NDJSON FILE served as one `PushBatch` call by the daemon's own parts
// (`Service.serve` decodes and queues it, `GroupCommit.flush` commits and answers it), into a fresh SQLite
// store (WAL, synchronous=FULL) on a fake clock. Prints CPU per push (getrusage) and checks that every line
// was answered `scheduled`. Run it with `scripts/bench/common.sh gen_pushes COUNT START SPAN mixed` output.
// `bulkPathLoop` is separate so that a profiler can be restricted to it
// (`valgrind --tool=callgrind --toggle-collect='*bulkPathLoop*' … bulkpath FILE`): instruction counts are
// repeatable where the daemon's CPU time under a concurrent client and bus is not.
import Glibc
import SchedCalendar
import Scheduler
import ScheddService
import SystemZones

func bulkPathBenchmark(_ args: [String]) {
    guard let file = args.first, let data = readWholeFile(file) else {
        print("usage: schedd-bench bulkpath FILE [BATCH]   (FILE: NDJSON pushes, one per line)"); return
    }
    let batch = args.dropFirst().first.flatMap { Int($0) } ?? 1000
    let lines = data.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
    var template = Array("/tmp/schedd-bench-bulkpath-XXXXXX".utf8CString)
    guard let dirPointer = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        print("bulkpath: cannot create a temporary directory"); return
    }
    let directory = String(cString: dirPointer)
    defer { _ = system("rm -rf '\(directory)'") }
    // The generator's instants start a day after its START: a fake clock at the first line's day keeps
    // every push in the future whatever day the file was made.
    let start = Instant(seconds: Int64(time(nil)))
    print("bulkpath: \(lines.count) pushes from \(file), PushBatch calls of \(batch), in \(directory)")
    do {
        let engine = try Engine(store: SQLiteScheduleStore(path: directory + "/s.db"), notifier: NullNotifier(),
                                deviceZone: .utc, zones: ZoneDatabase.shared, now: start)
        defer { engine.close() }
        let log = QuietLog()
        let lateDelivery = Late<Delivery>()  // the clock's methods deliver; the delivery reads the clock
        let clock = ServiceClock(fakeStart: start, engine: { engine }, delivery: { lateDelivery.value },
                                 zones: { name throws(ZoneError) in try ZoneDatabase.shared.zone(named: name) }, log: log)
        let storage = StorageMonitor(now: { clock.now }, serving: { "Serving" }, report: { _, _ in })
        let delivery = Delivery(engine: { engine }, clock: clock, storage: storage, log: log)
        lateDelivery.bind(delivery)
        let group = GroupCommit(engine: { engine }, clock: clock, storage: storage, announcer: log, log: log,
                                loop: DeferredLoop(), afterCommit: { delivery.settle() })
        let service = Service(engine: { engine }, clock: clock, delivery: delivery, groupCommit: group, storage: storage,
                              announcer: log)
        let batches = stride(from: 0, to: lines.count, by: batch).map { Array(lines[$0..<min($0 + batch, lines.count)]) }
        let before = cpuUsage()
        let scheduled = bulkPathLoop(service, group, batches)
        let after = cpuUsage()
        guard scheduled == lines.count else { print("bulkpath: \(scheduled) of \(lines.count) answered scheduled"); return }
        let user = (after.user - before.user) / Double(lines.count) * 1e6
        let system = (after.system - before.system) / Double(lines.count) * 1e6
        print("  daemon parts: user \(format(user)) us, system \(format(system)) us per push "
              + "(\(format(Double(lines.count) / (after.user + after.system - before.user - before.system))) pushes/s of CPU)")
    } catch {
        print("bulkpath: \(error)")
    }
}

/// Serves each batch as one PushBatch call and commits it; returns how many entries were answered `scheduled`.
@inline(never)
func bulkPathLoop(_ service: Service, _ group: GroupCommit, _ batches: [[String]]) -> Int {
    var scheduled = 0
    let caller = Caller(app: Engine.defaultApp, sandboxed: false)
    for texts in batches {
        service.serve(.pushBatch(texts), caller: caller) { result in
            guard case .success(.strings(let answers)) = result else { return }
            scheduled += answers.count { containsBytes($0, #""status":"scheduled""#) }
        }
        group.flush()
    }
    return scheduled
}

/// Whether `text` holds `part` (byte by byte; the standard library's `contains` for strings is Foundation's).
private func containsBytes(_ text: String, _ part: String) -> Bool {
    let haystack = Array(text.utf8), needle = Array(part.utf8)
    guard needle.count <= haystack.count else { return false }
    return (0...(haystack.count - needle.count)).contains { i in haystack[i..<(i + needle.count)].elementsEqual(needle) }
}

private final class QuietLog: ServiceLog, CancelAnnouncer {
    func write(_ level: ServiceLogLevel, _ message: String, id: String?, run: String?) {
        if level != .info { print("bulkpath: log: \(message)") }
    }
    func announceCancelled(_ ids: [String], reason: String, app: String) {}
    func announceCancelled(_ ids: [String], unlisted: Int, reason: String, app: String) {}
}

/// The loop's deferred source, as the bench runs it: `bulkPathLoop` flushes after each call itself.
private final class DeferredTrigger: LoopTrigger {
    func trigger() throws(LoopTriggerError) {}
}

/// A loop whose work never runs by itself: the benchmark flushes by hand.
private final class DeferredLoop: LoopScheduler {
    func source(_ priority: LoopPriority, _ action: @escaping () -> Void) -> LoopTrigger? { DeferredTrigger() }
}

/// The whole file, or nil when it cannot be read.
private func readWholeFile(_ path: String) -> [UInt8]? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let n = fread(&chunk, 1, chunk.count, f)
        if n <= 0 { break }
        bytes += chunk[0..<n]
    }
    return bytes
}
