import Glibc
import ScheddBus

/// A blocking client of org.schedd.Scheduler1: one bus connection, one call at a time, each waiting for
/// its reply on the calling thread. The synchronous façade the CLI is built on; ScheddClient is the
/// async one. Both use the same names (`SchedulerNames`), the same error mapping (`ScheddError`) and
/// the same pagers (`PendingPager`, `HistoryPager`).
///
/// Replies are handed back as the daemon's JSON text (the CLI prints them as they are under `--json`).
/// Not thread-safe (an sd-bus connection belongs to one thread). Cost: one bus round trip per call,
/// plus one per 1,000 rows for the paged reads; no thread, no signal subscription.
public final class ScheddBlockingClient {
    /// The bus the daemon is on.
    public let target: BusTarget
    private let connection: BusConnection

    /// Connects to `target`; with `app`, declares it for every later call (`DeclareApp`), so a refused
    /// or invalid id fails here, before anything is sent. `.unreachable` when there is no such bus.
    public init(target: BusTarget, app: String? = nil) throws(ScheddError) {
        self.target = target
        do {
            connection = try BusConnection.open(target)
        } catch {
            throw ScheddError(.unreachable, "cannot connect to \(target): \(error.reason)")
        }
        if let app { _ = try declareApp(app) }
    }

    deinit { connection.close() }

    /// Calls `member`; `read` decodes the reply. A reply of another shape is `.protocolError`. Sent
    /// and waited for like `send` + `wait` (not sd_bus_call, which drops an error reply's body: the
    /// daemon's member, rule and position, `ScheddError.detail`).
    public func call<T>(_ member: String, timeoutMicroseconds: UInt64 = 0,
                        _ build: (BusMessage) throws(BusError) -> Void = { _ throws(BusError) in },
                        read: @escaping (BusMessage) throws(BusError) -> T) throws(ScheddError) -> T {
        try wait(try send(member, timeoutMicroseconds: timeoutMicroseconds, build, read: read))
    }

    /// Sends `member` now and returns at once; `wait` reads the reply. Calls sent before the first wait
    /// travel together, the first one even with the connection's `Hello`, so they cost one round trip
    /// between them instead of one each (a `ClockShow` beside a `Push`: docs/cli.md "Start-up cost").
    public func send<T>(_ member: String, timeoutMicroseconds: UInt64 = 0,
                        _ build: (BusMessage) throws(BusError) -> Void = { _ throws(BusError) in },
                        read: @escaping (BusMessage) throws(BusError) -> T) throws(ScheddError) -> PendingCall<T> {
        let pending = PendingCall<T>()
        let target = target
        do {
            try connection.callAsync(SchedulerNames.method(member), timeoutMicroseconds: timeoutMicroseconds, build) { result in
                switch result {
                case .success(let m):
                    do throws(BusError) {
                        pending.result = .success(try read(m))
                    } catch {
                        pending.result = .failure(ScheddError(.protocolError, "unexpected reply to \(member) from \(target): \(error.reason)"))
                    }
                case .failure(let error): pending.result = .failure(ScheddError(error))
                }
            }
        } catch {
            throw ScheddError(error)
        }
        return pending
    }

    /// Writes the calls sent so far, after the connection's authentication and `Hello` (whose reply it
    /// waits for): what the caller does next overlaps the daemon's work on them.
    public func flush() { connection.flush() }

    /// Waits for the reply of a call made with `send` (replies to other calls are kept for their own wait).
    public func wait<T>(_ call: PendingCall<T>) throws(ScheddError) -> T {
        _ = connection.process(until: { call.result != nil })
        switch call.result {
        case .success(let value): return value
        case .failure(let error): throw error
        case nil: throw ScheddError(.unreachable, "lost the connection to \(target)")
        }
    }

    /// Calls a method that answers one string (a JSON text).
    public func callString(_ member: String, timeoutMicroseconds: UInt64 = 0,
                           _ build: (BusMessage) throws(BusError) -> Void = { _ throws(BusError) in }) throws(ScheddError) -> String {
        try call(member, timeoutMicroseconds: timeoutMicroseconds, build, read: { m throws(BusError) in try m.readString() })
    }

    /// `DeclareApp`: the calls that follow act for `app`; the daemon's `{"app","source","sandboxed"}`.
    public func declareApp(_ app: String) throws(ScheddError) -> String {
        try callString("DeclareApp") { m throws(BusError) in try m.append(app) }
    }

    /// Pending schedules by next due as page texts (`mergedJSONArray` joins them): `offset` skipped, at
    /// most `limit` (every one when nil); of every app with `allApps` (`ListAllAppsPage`).
    public func pendingPages(offset: Int = 0, limit: Int? = nil, allApps: Bool = false) throws(ScheddError) -> [String] {
        let method = allApps ? "ListAllAppsPage" : "ListPage"
        var pager = PendingPager(offset: offset, limit: limit)
        var pages: [String] = []
        while let (after, want) = pager.next {
            let (text, next) = try call(method, { m throws(BusError) in try m.append(after); try m.append(want) },
                                        read: { m throws(BusError) in (try m.readString(), try m.readString()) })
            pages.append(text)
            pager.received(rows: pager.countsRows ? jsonArrayCount(text) : 0, next: next)
        }
        return pages
    }

    /// How many schedules are pending, of the caller's app or of every app (`PendingCount[AllApps]`). One call.
    public func pendingCount(allApps: Bool = false) throws(ScheddError) -> Int {
        Int(try call(allApps ? "PendingCountAllApps" : "PendingCount", read: { m throws(BusError) in try m.readUInt32() }))
    }

    /// The snoozed notifications, soonest back first, as one JSON text `[{"id","title","until","due","app"}]`
    /// (at most 1,000: a person's snoozes), of the caller's app or every app (`Snoozed[AllApps]`).
    public func snoozed(allApps: Bool = false) throws(ScheddError) -> String {
        try callString(allApps ? "SnoozedAllApps" : "Snoozed") { m throws(BusError) in try m.append(UInt32(0)) }
    }

    /// The newest `limit` history records (every one when nil) as page texts, oldest page first (each
    /// page oldest first); of every app with `allApps` (`HistoryAllAppsPage`).
    public func historyPages(limit: Int? = nil, allApps: Bool = false) throws(ScheddError) -> [String] {
        let method = allApps ? "HistoryAllAppsPage" : "HistoryPage"
        var pager = HistoryPager(limit: limit)
        var newestFirst: [String] = []
        while let (before, want) = pager.next {
            let (text, next) = try call(method, { m throws(BusError) in try m.append(before); try m.append(want) },
                                        read: { m throws(BusError) in (try m.readString(), try m.readUInt64()) })
            newestFirst.append(text)
            pager.received(rows: jsonArrayCount(text), next: next)
        }
        return newestFirst.reversed()
    }
}

/// A call of `ScheddBlockingClient.send` whose reply has not been read yet (`wait`).
public final class PendingCall<T> {
    fileprivate var result: Result<T, ScheddError>?
    fileprivate init() {}
}
