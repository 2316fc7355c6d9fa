// libFuzzer harness over the daemon's method dispatch (scripts/fuzz.sh dispatch; issues 9 and 20).
//
// An input is a sequence of up to 8 calls, each `[method byte][length: 2 bytes LE][body]`: the method
// byte picks one of `SchedulerCall.methods` (mod their count) and the body is its arguments in the
// D-Bus wire format. Each call goes the daemon's own way: `WireArguments` (what sd-bus checks),
// `SchedulerCall(member:arguments:)` (the method's signature and the argument caps), then the daemon's
// dispatcher, `ScheddService.Service.serve` — with its group commit, sliced delivery, fake clock and
// storage health — over an `Engine` on a real SQLite store in a temporary file (tmpfs when there is
// one), seeded with schedules of every kind and some history, and with more schedules that cancel on
// one event ("many") than a Track cancels at once, so a Track of it leaves a cancellation job. Only
// the loop is missing: with no triggers set, the group commit commits at once and a delivery runs all
// its slices at once; a cancellation job runs one slice after each call (the daemon's `CancelSlicing`,
// triggered as in the daemon, its trigger pulled by the harness), the rest after the last call.
//
// Checks, for every input:
// - nothing traps, hangs or leaks; every call is answered exactly once;
// - a call answered with an error changes nothing (pending count, next due, fake clock unchanged);
// - a ListPage holds at most ReplyBounds rows and bytes and its `next` cursor decodes; a HistoryPage
//   at most the bound; no `as` reply over the bounds;
// - the fake clock stays inside `Instant.supportedRange`;
// - once every cancellation job is done, the store's pending count equals the wheel's.
import SystemZones
import Glibc
import SchedCalendar
import Scheduler
import ScheddService

/// The longest span one fuzzed ClockAdvance may run (a span the range check rejects always runs): the
/// engine's work grows with the occurrences in the span, which is not what this harness is after.
let maxExecutedAdvance: UInt64 = 7 * 86_400 * 1_000_000

/// The directory of the temporary stores (one per input, removed after it).
let storeDirectory: String = {
    let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    var template = Array("\(base)/schedd-fuzz-dispatch-XXXXXX".utf8CString)
    guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) != nil }) else {
        fatalError("cannot create a temporary directory in \(base)")
    }
    return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}()

let seededStart = Instant(seconds: 1_772_946_000)  // 2026-03-08T05:00:00Z
let seededNow = seededStart.adding(seconds: 1)

/// A store seeded once per process with schedules of every kind and some history (one fired), copied
/// for each input: opening a copy costs far less than creating and seeding a store.
let seededStore: String = {
    let path = "\(storeDirectory)/seeded.db"
    do {
        let engine = try! Engine(store: try! SQLiteScheduleStore(path: path), notifier: RecordingNotifier(),
                                 deviceZone: .utc, zones: ZoneDatabase.shared, now: seededStart)
        let seeds = [
            #"{"bk":{"local":{"id":"run_1:a","at":"2026-03-08T06:00:00Z","title":"A","cancelOn":["ev"]}}}"#,
            #"{"bk":{"local":{"id":"run_1:b","calendar":"*-*-* 07:30","title":"B"}}}"#,
            #"{"bk":{"local":{"id":"run_2:c","at":"2026-03-09T08:00","title":"C","timeZone":"UTC"}}}"#,
            #"{"bk":{"local":{"id":"d","at":"2026-03-08T05:00:00Z","title":"D"}}}"#,
        ]
        for text in seeds { _ = try! engine.push(try! PushDecoder.decode(Array(text.utf8), zones: ZoneDatabase.shared), now: seededStart) }
        // More than a Track cancels at once: `Track("many")` leaves a job for CancelSlicing.
        let many = (0..<(Engine.cancelFirstSlice + 40)).map { i in
            try! PushDecoder.decode(Array(#"{"bk":{"local":{"id":"run_3:\#(i)","at":"2026-03-10T09:00:00Z","title":"M","cancelOn":["many"]}}}"#.utf8),
                                    zones: ZoneDatabase.shared)
        }
        _ = try! engine.pushBatch(many, now: seededStart)
        _ = try! engine.advance(to: seededNow, mode: .timePassing)
    }  // the engine and its store close here: the WAL is checkpointed into the file
    atexit {
        for suffix in ["", "-wal", "-shm"] { unlink("\(storeDirectory)/seeded.db" + suffix) }
        rmdir(storeDirectory)
    }
    return path
}()

/// Copies the file at `source` to `target` (the seeded store, a few pages).
func copyFile(_ source: String, to target: String) {
    let input = open(source, O_RDONLY), output = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    check(input >= 0 && output >= 0, "cannot copy the seeded store to \(target)")
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
        guard n > 0 else { break }
        _ = buffer.withUnsafeBytes { write(output, $0.baseAddress, n) }
    }
    close(input)
    close(output)
}

final class SilentLog: ServiceLog, CancelAnnouncer {
    var cancelled = 0
    func write(_ level: ServiceLogLevel, _ message: String, id: String?, run: String?) {}
    func announceCancelled(_ ids: [String], reason: String, app: String) { cancelled += ids.count }
}

final class FuzzWorld {
    let path: String
    let engine: Engine
    let clock: ServiceClock
    let service: Service
    let slicing: CancelSlicing
    /// CancelSlicing's trigger: pulled by the part, run by `runSlice` (the daemon's loop would).
    let sliceTrigger = PulledTrigger()
    let log = SilentLog()

    init(input number: Int) {
        path = "\(storeDirectory)/\(number).db"
        copyFile(seededStore, to: path)
        let store = try! SQLiteScheduleStore(path: path)
        let engine = try! Engine(store: store, notifier: RecordingNotifier(), deviceZone: .utc, zones: ZoneDatabase.shared, now: seededNow)
        self.engine = engine
        let log = log
        // The clock's methods deliver, and the delivery reads the clock: the delivery is bound once made.
        let lateDelivery = Late<Delivery>()
        clock = ServiceClock(fakeStart: seededNow, engine: { engine }, delivery: { lateDelivery.value },
                             zones: { name throws(ZoneError) in try ZoneDatabase.shared.zone(named: name) }, log: log)
        let storage = StorageMonitor(now: { [clock] in clock.now }, serving: { "fuzz" }, report: { _, _ in })
        let slicing = CancelSlicing(engine: { engine }, clock: clock, storage: storage, log: log,
                                    loop: PulledLoop(sliceTrigger))
        let delivery = Delivery(engine: { engine }, clock: clock, storage: storage, log: log,
                                events: Delivery.Events(settled: { slicing.kick() }))
        lateDelivery.bind(delivery)
        let group = GroupCommit(engine: { engine }, clock: clock, storage: storage, announcer: log, log: log,
                                afterCommit: { delivery.settle() })
        self.slicing = slicing
        service = Service(engine: { engine }, clock: clock, delivery: delivery, groupCommit: group, storage: storage,
                          announcer: log, cancelSlicing: slicing)
    }

    func close() {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }

    /// The state an answered error must leave alone.
    var fingerprint: [Int64] { [Int64(engine.pendingCount), engine.nextDue?.microseconds ?? -1, clock.now.microseconds] }

    func run(_ call: SchedulerCall) {
        if case .clockAdvance(let microseconds) = call, microseconds > maxExecutedAdvance,
           (try? ClockArguments.advanceTarget(from: clock.now, microseconds: microseconds)) != nil {
            return
        }
        let before = fingerprint
        var answers: [Result<CallAnswer, ServiceFailure>] = []
        service.serve(call, caller: Caller(app: Engine.defaultApp, sandboxed: false)) { answers.append($0) }
        // ClockNext waits for the cancellation jobs (CancelSlicing.afterJobs): their slices run first, as the
        // loop would run them, and change the state before the answer.
        var waited = 0
        while answers.isEmpty, sliceTrigger.pulled, waited < 100_000 { runSlice(); waited += 1 }
        check(answers.count == 1, "\(call.name) answered \(answers.count) times")
        guard answers.count == 1 else { return }
        switch answers[0] {
        case .failure(let failure):
            check(waited > 0 || fingerprint == before,
                  "\(call.name) failed (\(failure.name)) but changed the state \(before) → \(fingerprint)")
        case .success(let answer):
            checkBounded(call, answer)
        }
        check(clock.now.isSupported, "the fake clock left the supported range: \(clock.now.microseconds)")
        runSlice()
    }

    /// One cancellation slice when CancelSlicing asked for one, as the loop runs it between calls.
    func runSlice() {
        guard sliceTrigger.pulled else { return }
        sliceTrigger.pulled = false
        slicing.continueSlicing()
    }

    /// After the last call: the jobs' remaining slices, then the counts must agree.
    func finish() {
        var slices = 0
        while sliceTrigger.pulled, slices < 1000 { runSlice(); slices += 1 }
        check(!engine.hasCancelJobs, "a cancellation job remains after \(slices) slices")
        let stored = (try? engine.pendingCount(app: nil)) ?? -1
        check(stored == engine.pendingCount, "the store counts \(stored) pending, the wheel holds \(engine.pendingCount)")
    }

    /// No answer exceeds the paging bounds (CONTRACT §9); pages are ordered and their cursors decode.
    private func checkBounded(_ call: SchedulerCall, _ answer: CallAnswer) {
        switch answer {
        case .listPage(let pending, let next):
            check(pending.utf8.count <= ReplyBounds.maxBytes, "ListPage of \(pending.utf8.count) bytes")
            guard case .array(let rows)? = try? JSONValue.parse(pending) else { return check(false, "ListPage is not an array") }
            check(rows.count <= ReplyBounds.maxRows, "ListPage of \(rows.count) rows")
            // Sealed per app (PagingSeal): `v2:` and 40 hex digits.
            if !next.isEmpty { check(next.hasPrefix("v2:") && next.utf8.count == 43, "ListPage next '\(next)' is not a sealed cursor") }
        case .historyPage(let records, _):
            check(records.utf8.count <= ReplyBounds.maxBytes, "HistoryPage of \(records.utf8.count) bytes")
            guard case .array(let rows)? = try? JSONValue.parse(records) else { return check(false, "HistoryPage is not an array") }
            check(rows.count <= ReplyBounds.maxRows, "HistoryPage of \(rows.count) rows")
        case .strings(let list):
            if case .pushBatch(let texts) = call { return check(list.count == texts.count, "PushBatch answers \(list.count) of \(texts.count)") }
            check(list.count <= ReplyBounds.maxRows, "\(call.name) answered \(list.count) ids")
        case .cancelled(let count, let ids, let more):
            check(ids.count <= ReplyBounds.maxRows && ids.count <= Int(count) && more == (ids.count < Int(count)),
                  "\(call.name) answered \(ids.count) ids of \(count), more \(more)")
        case .string, .count:
            break
        }
    }
}

/// A loop trigger that only records that it was pulled.
/// A loop that hands out `trigger` for the cancellation slices (and runs every other work at once).
final class PulledLoop: LoopScheduler {
    let trigger: PulledTrigger
    init(_ trigger: PulledTrigger) { self.trigger = trigger }
    func source(_ priority: LoopPriority, _ action: @escaping () -> Void) -> LoopTrigger? {
        priority == .cancelSlices ? trigger : nil
    }
}

final class PulledTrigger: LoopTrigger {
    var pulled = false
    func trigger() throws(LoopTriggerError) { pulled = true }
}

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

nonisolated(unsafe) var inputs = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDispatch(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    inputs += 1
    let world = FuzzWorld(input: inputs)
    defer { world.close() }
    var i = 0, calls = 0
    while i < bytes.count, calls < 8 {
        let method = SchedulerCall.methods[Int(bytes[i]) % SchedulerCall.methods.count]
        let length = i + 2 < bytes.count ? Int(bytes[i + 1]) | Int(bytes[i + 2]) << 8 : 0
        let start = min(bytes.count, i + 3), end = min(bytes.count, start + length)
        var arguments = WireArguments(Array(bytes[start..<end]))
        if let call = try? SchedulerCall(member: method.name, arguments: &arguments) { world.run(call) }
        i = end
        calls += 1
    }
    world.finish()
    return 0
}
