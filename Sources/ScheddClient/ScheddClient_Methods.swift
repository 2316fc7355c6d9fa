import Foundation
import ScheddBus
import ScheddClientCore

// The methods of org.schedd.Scheduler1 (README, "D-Bus API"), typed.
extension ScheddClient {
    // MARK: Pushes, events, cancels

    /// Applies one push; one outcome per schedule (a `bk.cancel` answers first). A push that breaks a
    /// rule throws `.invalidPush` naming the member, and nothing is stored.
    public func push(_ push: Push) async throws(ScheddError) -> [PushOutcome] {
        try await self.push(json: push.json())
    }

    /// Applies one push given as JSON text.
    public func push(json text: String) async throws(ScheddError) -> [PushOutcome] {
        try await callJSON("Push", as: [PushOutcome].self) { m throws(BusError) in try m.append(text) }
    }

    /// Applies many pushes: one result per push, in order (a rejected push is a `.failure(.invalidPush)`;
    /// the others still apply). Sent as `PushBatch` calls within the daemon's caps
    /// (`PushBatchLimits`: 10,000 pushes and 8 MiB per call, split by `pushBatchPages`), each one group
    /// commit; a failure of one call (storage) throws, and the pushes of the calls before it stay applied.
    public func pushBatch(_ pushes: [Push]) async throws(ScheddError) -> [Result<[PushOutcome], ScheddError>] {
        let texts = pushes.map { $0.json() }
        var answers: [String] = []
        answers.reserveCapacity(texts.count)
        for page in pushBatchPages(sizes: texts.map(\.utf8.count)) {
            let slice = Array(texts[page])
            answers += try await call("PushBatch", { m throws(BusError) in try m.append(slice) },
                                      read: { m throws(BusError) in try m.readStrings() })
        }
        return answers.map { answer in
            if let outcomes = try? JSONDecoder().decode([PushOutcome].self, from: Data(answer.utf8)) {
                return .success(outcomes)
            }
            let rejected = try? JSONDecoder().decode(BatchRejection.self, from: Data(answer.utf8))
            var error = ScheddError(.invalidPush, rejected?.error ?? answer, dbusName: SchedulerErrorName.invalidPush.rawValue)
            if let rejected, let member = rejected.member, let rule = rejected.rule {
                error.detail = SchedulerErrorDetail(member: member, rule: rule, position: rejected.position,
                                                    syntax: rejected.syntax)
            }
            return .failure(error)
        }
    }

    /// Reports an event: cancels every pending schedule whose `cancelOn` holds it; says how many, and
    /// lists the first of their ids (bounded: `Cancelled`).
    public func track(_ event: String, data: JSONValue? = nil) async throws(ScheddError) -> Cancelled {
        let dataText: String
        if let data {
            dataText = String(decoding: (try? JSONEncoder().encode(data)) ?? Data(), as: UTF8.self)
        } else {
            dataText = ""
        }
        return try await call("Track", { m throws(BusError) in try m.append(event); try m.append(dataText) },
                              read: Cancelled.read)
    }

    /// Cancels one schedule (and leaves a tombstone); says what it cancelled.
    public func cancel(id: String) async throws(ScheddError) -> Cancelled {
        try await call("Cancel", { m throws(BusError) in try m.append(id) }, read: Cancelled.read)
    }

    /// Cancels every schedule of a run; says how many, and lists the first of their ids.
    public func cancel(run: String) async throws(ScheddError) -> Cancelled {
        try await call("CancelRun", { m throws(BusError) in try m.append(run) }, read: Cancelled.read)
    }

    // MARK: Reading

    /// Every pending schedule, soonest first (then in the order they were stored), page by page.
    public func pending() async throws(ScheddError) -> [PendingSchedule] {
        var result: [PendingSchedule] = []
        var pager = PendingPager()
        while let (after, want) = pager.next {
            let (text, next) = try await call("ListPage", { m throws(BusError) in try m.append(after); try m.append(want) },
                                              read: { m throws(BusError) in (try m.readString(), try m.readString()) })
            let page = try decode([PendingSchedule].self, text, "ListPage")
            result += page
            pager.received(rows: page.count, next: next)
        }
        return result
    }

    /// How many schedules of this app are pending (the fake-timer libraries' `countTimers`): one
    /// `PendingCount` call, O(1) in the number pending.
    public func pendingCount() async throws(ScheddError) -> Int {
        Int(try await call("PendingCount", { _ throws(BusError) in }, read: { m throws(BusError) in try m.readUInt32() }))
    }

    /// History, oldest first: all of it, or the newest `limit` records; page by page.
    public func history(limit: Int? = nil) async throws(ScheddError) -> [HistoryRecord] {
        var pages: [[HistoryRecord]] = []
        var pager = HistoryPager(limit: limit)
        while let (before, want) = pager.next {
            let (text, next) = try await call("HistoryPage", { m throws(BusError) in try m.append(before); try m.append(want) },
                                              read: { m throws(BusError) in (try m.readString(), try m.readUInt64()) })
            let page = try decode([HistoryRecord].self, text, "HistoryPage")
            pages.append(page)
            pager.received(rows: page.count, next: next)
        }
        let records = pages.reversed().flatMap { $0 }
        return limit.map { Array(records.suffix($0)) } ?? records
    }

    // MARK: The clock

    /// `{"now","zone","fake"}`; works on the real clock too.
    public func clock() async throws(ScheddError) -> ClockState {
        try await callJSON("ClockShow", as: ClockState.self)
    }

    /// A wall-clock step to `time` (RFC 3339, or a wall time in the device zone), like `date -s`: what it
    /// jumps over is late — shown at once within its grace, else missed. Fake clock only.
    @discardableResult
    public func setClock(to time: String) async throws(ScheddError) -> ClockState {
        try await callJSON("ClockSet", as: ClockState.self, timeoutMicroseconds: Self.clockTimeoutMicroseconds) {
            m throws(BusError) in try m.append(time)
        }
    }

    /// Time passing: everything due in `span` fires on time, in due order; returns after all of it was
    /// delivered and recorded. Fake clock only (`.notFakeClock` otherwise).
    @discardableResult
    public func advanceClock(by span: Duration) async throws(ScheddError) -> ClockState {
        let (seconds, attoseconds) = span.components
        guard seconds >= 0, attoseconds >= 0 else { throw ScheddError(.invalidArgument, "advanceClock: negative span \(span)") }
        let microseconds = UInt64(seconds) &* 1_000_000 &+ UInt64(attoseconds / 1_000_000_000_000)
        return try await callJSON("ClockAdvance", as: ClockState.self, timeoutMicroseconds: Self.clockTimeoutMicroseconds) {
            m throws(BusError) in try m.append(microseconds)
        }
    }

    /// The machine sleeps for `span` and resumes (CONTRACT §11): the wall clock moves forward and what
    /// fell due meanwhile is late — shown at once within its grace, more than the daemon's fold threshold
    /// of one app folded into one summary, alarms never. Returns after all of it was delivered and
    /// recorded; `status()`'s `sleep` then shows the sleep and the resume. Fake clock only.
    @discardableResult
    public func sleepClock(for span: Duration) async throws(ScheddError) -> ClockState {
        let (seconds, attoseconds) = span.components
        guard seconds >= 0, attoseconds >= 0 else { throw ScheddError(.invalidArgument, "sleepClock: negative span \(span)") }
        let microseconds = UInt64(seconds) &* 1_000_000 &+ UInt64(attoseconds / 1_000_000_000_000)
        return try await callJSON("ClockSleep", as: ClockState.self, timeoutMicroseconds: Self.clockTimeoutMicroseconds) {
            m throws(BusError) in try m.append(microseconds)
        }
    }

    /// What `schedd status --json` prints (version, database, notifier and its server, pending and
    /// snoozed counts, next due, `wake` and `sleep`), as JSON: docs/dbus-interfaces.md `Status`.
    public func status() async throws(ScheddError) -> JSONValue {
        try await callJSON("Status", as: JSONValue.self)
    }

    /// Time passing up to the next due instant, delivering what is due then (nothing when nothing is
    /// pending). Fake clock only.
    @discardableResult
    public func advanceClockToNext() async throws(ScheddError) -> ClockState {
        try await callJSON("ClockNext", as: ClockState.self, timeoutMicroseconds: Self.clockTimeoutMicroseconds)
    }

    /// A device-zone change, as a new /etc/localtime: floating schedules keep their wall time.
    @discardableResult
    public func setZone(_ zone: String) async throws(ScheddError) -> ClockState {
        try await callJSON("ClockZone", as: ClockState.self) { m throws(BusError) in try m.append(zone) }
    }

    /// Moves the clock from due instant to due instant until nothing is pending; returns the steps
    /// taken. Throws `.runawayTimers` after `limit` steps with schedules still pending (a repeating
    /// schedule never goes idle) — sinon's `runAll` with its `loopLimit`.
    @discardableResult
    public func runUntilIdle(limit: Int = 1000) async throws(ScheddError) -> Int {
        var steps = 0
        while try await pendingCount() > 0 {
            if steps >= limit {
                throw ScheddError(.runawayTimers, "runUntilIdle: still \(try await pendingCount()) pending after \(limit) "
                                  + "steps (a repeating schedule never goes idle; raise the limit or advance by a span)")
            }
            try await advanceClockToNext()
            steps += 1
        }
        return steps
    }
}

/// A rejected `PushBatch` entry: `{"error": …}` with `member`, `rule` and `position` when the daemon
/// names them (README.md "Errors").
private struct BatchRejection: Decodable {
    var error: String
    var member: String?
    var rule: String?
    var position: Int?
    var syntax: String?
}
