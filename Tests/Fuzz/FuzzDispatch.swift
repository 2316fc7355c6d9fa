// libFuzzer harness over the D-Bus method dispatch (scripts/fuzz.sh dispatch; issue 9 item 6).
//
// An input is a sequence of up to 8 calls, each `[method byte][length: 2 bytes LE][body]`: the method
// byte picks one of `SchedulerCall.methods` (mod 18) and the body is its arguments in the D-Bus wire
// format. Each call goes through the decoding the service uses — `WireArguments` (what sd-bus checks),
// `SchedulerCall(member:arguments:)` (the method's signature), then the argument rules the daemon
// applies (`PushDecoder`, `ListCursorText`, `ClockArguments`, zone names, the engine's id/event
// rules) — and runs against an `Engine` on an in-memory store with a fake clock, seeded with schedules
// of every kind and some history. The engine calls are those of Sources/schedd/Daemon/Daemon_*.swift.
//
// Checks, for every input:
// - nothing traps, hangs or leaks;
// - a call rejected before the engine changes nothing (pending count, next due, clock unchanged);
// - a ListPage holds only rows after its cursor, in (next due, key) order, at most the bound + 1;
//   a HistoryPage only records below its `before`, newest first;
// - the fake clock stays inside `Instant.supportedRange`.
import SchedCalendar
import Scheduler
import ScheddService

/// The longest span one fuzzed ClockAdvance may run (the range check runs on every span first): the
/// engine's work grows with the occurrences in the span, which is not what this harness is after.
let maxExecutedAdvance: UInt64 = 7 * 86_400 * 1_000_000

final class FuzzWorld {
    var now = Instant(seconds: 1_772_946_000)  // 2026-03-08T05:00:00Z
    let engine: Engine

    init() {
        engine = try! Engine(store: InMemoryScheduleStore(), notifier: RecordingNotifier(), deviceZone: .utc, now: now)
        let seeds = [
            #"{"bk":{"local":{"id":"run_1:a","at":"2026-03-08T06:00:00Z","title":"A","cancelOn":["ev"]}}}"#,
            #"{"bk":{"local":{"id":"run_1:b","calendar":"*-*-* 07:30","title":"B"}}}"#,
            #"{"bk":{"local":{"id":"run_2:c","at":"2026-03-09T08:00","title":"C","timeZone":"UTC"}}}"#,
            #"{"bk":{"local":{"id":"d","at":"2026-03-08T05:00:00Z","title":"D"}}}"#,
        ]
        for text in seeds { _ = try! engine.push(try! PushDecoder.decode(Array(text.utf8)), now: now) }
        _ = try! engine.advance(to: now.adding(seconds: 1), mode: .timePassing)
        now = now.adding(seconds: 1)
    }

    /// The state a rejected call must leave alone.
    var fingerprint: [Int64] { [Int64(engine.pendingCount), engine.nextDue?.microseconds ?? -1, now.microseconds] }

    func run(_ call: SchedulerCall) {
        let before = fingerprint
        switch call {
        case .push(let text):
            guard let push = try? PushDecoder.decode(Array(text.utf8)) else { return unchanged(before, "Push") }
            _ = try? engine.push(push, now: now)
        case .pushBatch(let texts):
            let pushes = texts.compactMap { try? PushDecoder.decode(Array($0.utf8)) }
            _ = try? engine.pushBatch(pushes, now: now)
        case .track(let event, let data):
            if let data, (try? JSONValue.parse(data)) == nil { return unchanged(before, "Track data") }
            if (try? engine.track(event: event, dataJSON: data, now: now)) == nil { unchanged(before, "Track") }
        case .cancel(let id):
            if (try? engine.cancel(id: id, now: now)) == nil { unchanged(before, "Cancel") }
        case .cancelRun(let run):
            if (try? engine.cancel(run: run, now: now)) == nil { unchanged(before, "CancelRun") }
        case .cancelReport(let id):
            if (try? engine.cancelReporting(id: id, now: now)) == nil { unchanged(before, "CancelReport") }
        case .cancelRunReport(let run):
            if (try? engine.cancelReporting(run: run, now: now)) == nil { unchanged(before, "CancelRunReport") }
        case .list(let limit, let offset):
            let rows = limit == 0 ? ReplyBounds.maxRows + 1 : min(Int(limit), ReplyBounds.maxRows + 1)
            _ = try? engine.list(limit: rows, offset: Int(offset))
        case .listPage(let after, let limit):
            listPage(app: Engine.defaultApp, after: after, limit: limit, before: before)
        case .listAllAppsPage(let after, let limit):
            listPage(app: nil, after: after, limit: limit, before: before)
        case .pendingCount:
            check((try? engine.pendingCount(app: Engine.defaultApp)) == engine.pendingCount, "PendingCount disagrees with the wheel")
        case .pendingCountAllApps:
            check((try? engine.pendingCount(app: nil)) == engine.pendingCount, "PendingCountAllApps disagrees with the wheel")
        case .declareApp, .subscribe, .subscribeAllApps:
            break  // identity of the connection (ScheddApps' AppID rules); nothing reaches the engine
        case .history(let limit):
            _ = try? engine.history(limit: min(limit == 0 ? 100 : Int(limit), ReplyBounds.maxRows + 1))
        case .historyPage(let before, let limit):
            let bound: Int64? = before == 0 ? nil : Int64(clamping: before)
            let rows = limit == 0 ? ReplyBounds.maxRows : min(Int(limit), ReplyBounds.maxRows)
            let page = (try? engine.historyPage(before: bound, limit: rows + 1)) ?? []
            check(page.allSatisfy { $0.seq < (bound ?? Int64.max) }, "HistoryPage record not below its cursor")
            check(zip(page, page.dropFirst()).allSatisfy { $0.seq > $1.seq }, "HistoryPage not newest first")
        case .clockShow:
            break
        case .clockSet(let text):
            guard let target = try? ClockArguments.setTarget(instant(fromTimeText: text, in: engine.deviceZone), text: text)
            else { return unchanged(before, "ClockSet") }
            now = target
            _ = try? engine.advance(to: now, mode: .wallClock)
        case .clockAdvance(let microseconds):
            guard let target = try? ClockArguments.advanceTarget(from: now, microseconds: microseconds) else {
                return unchanged(before, "ClockAdvance")
            }
            guard microseconds <= maxExecutedAdvance else { return }
            now = target
            _ = try? engine.advance(to: now, mode: .timePassing)
        case .clockNext:
            guard let due = engine.nextDue else { return }
            guard due.isSupported else { return unchanged(before, "ClockNext") }
            if due > now { now = due }
            _ = try? engine.advance(to: now, mode: .timePassing)
        case .clockZone(let name):
            guard let zone = try? ZoneDatabase.shared.zone(named: name) else { return unchanged(before, "ClockZone") }
            _ = try? engine.deviceZoneChanged(to: zone, now: now)
        }
        check(now.isSupported, "the fake clock left the supported range: \(now.microseconds)")
    }

    /// `ListPage` (of `app`, or of every app when nil): the cursor rules, then the engine's page.
    private func listPage(app: String?, after: String, limit: UInt32, before: [Int64]) {
        guard let start = try? ListCursorText.start(after) else { return unchanged(before, "ListPage cursor") }
        let rows = limit == 0 ? ReplyBounds.maxRows : min(Int(limit), ReplyBounds.maxRows)
        let page: [(cursor: PendingCursor, schedule: PendingSchedule)]
        switch start {
        case .first: page = (try? engine.listPage(app: app, after: nil, limit: rows + 1)) ?? []
        case .after(let cursor):
            page = (try? engine.listPage(app: app, after: cursor, limit: rows + 1)) ?? []
            check(page.allSatisfy { $0.cursor.isAfter(cursor) }, "ListPage row before its cursor")
        case .skipping(let offset): page = (try? engine.listPage(app: app, skipping: offset, limit: rows + 1)) ?? []
        }
        check(page.count <= rows + 1, "ListPage returned \(page.count) rows for \(rows)")
        check(zip(page, page.dropFirst()).allSatisfy { $1.cursor.isAfter($0.cursor) }, "ListPage out of order")
        if let last = page.last {
            check((try? ListCursorText.decode(ListCursorText.encode(last.cursor))) == last.cursor, "cursor text")
        }
    }

    private func unchanged(_ before: [Int64], _ what: String) {
        check(fingerprint == before, "\(what): a rejected call changed the state \(before) → \(fingerprint)")
    }
}

func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDispatch(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let world = FuzzWorld()
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
    return 0
}
