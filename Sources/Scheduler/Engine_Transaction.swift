import SchedCalendar

/// What one store transaction changed outside the database, as a value: the timer-wheel changes to make
/// and the notifications that may be on screen, to be closed. The transaction's body builds it
/// (`EngineState.transaction` hands it in), and it is applied only after COMMIT; on ROLLBACK — or a
/// savepoint's rollback (`EngineState.savepoint`) — the value is dropped with the scope that held it, so a
/// failure costs nothing in the wheel (no O(n) rebuild) and closes nothing.
struct ChangeSet {
    /// Wheel changes in order: arm `key` at `due`, or disarm it (`due` nil).
    private(set) var wheel: [(key: Int64, due: Instant?)] = []
    /// Ids of the calling operation's app whose notifications may be on screen: the caller closes them after
    /// the commit, with its own reason (a cancel's `cli`/`run`/`event:NAME`, a push's `push`).
    var closes: [String] = []
    /// Schedules a cancellation job covered and settled outside a cancel call (firing, pushing, unblocking):
    /// closed with the job's reason after the commit, at the engine's next `closeSettled`.
    var settled: [(app: String, id: String, reason: String)] = []

    /// Arms `key` at `due` once the transaction commits (replacing any earlier due of `key`).
    mutating func arm(key: Int64, due: Instant) { wheel.append((key, due)) }

    /// Disarms `key` once the transaction commits.
    mutating func disarm(key: Int64) { wheel.append((key, nil)) }

    /// Appends what a later, nested scope (a released savepoint, a finished call of a group) changed.
    /// O(its changes).
    mutating func append(_ later: ChangeSet) {
        wheel += later.wheel
        closes += later.closes
        settled += later.settled
    }

    /// Applies the wheel changes in order to `wheel`; a run of disarms goes as one batch (one rescan of the
    /// earliest slot, not one per cancel). Call only after the transaction committed. O(changes).
    func applyWheelChanges(to wheel: inout TimerWheel) {
        var cancels: [Int64] = []
        for (key, due) in self.wheel {
            if let due {
                if !cancels.isEmpty { wheel.cancel(keys: cancels); cancels.removeAll(keepingCapacity: true) }
                wheel.insert(key: key, due: due)
            } else {
                cancels.append(key)
            }
        }
        if !cancels.isEmpty { wheel.cancel(keys: cancels) }
    }
}

/// The transaction an open `Engine.group` holds: what its finished calls changed (applied after the
/// group's COMMIT), and whether a call starting now runs directly in a `groupMember` (whose savepoint
/// undoes it whole when it throws).
struct OpenGroup {
    var changes = ChangeSet()
    var inMember = false
}

// Transactions as values: every write is `transaction { changes in … }`; nothing in the engine counts depths
// or keeps a log that a failure must trim. They run over the engine's one state (`EngineState`); `Engine`
// and its parts call them on it (`state.transaction { … }`).
extension EngineState {
    /// Runs `body` in ONE store transaction (inside an open `group`: in the group's), handing it an empty
    /// `ChangeSet` to fill. Returns the body's result and its change set after COMMIT, its wheel changes
    /// applied and its settled closes queued for `closeSettled` — inside a group both wait for the group's
    /// COMMIT (`OpenGroup`). When `body` or the COMMIT fails, nothing of the change set is applied and the
    /// error is thrown as an `EngineError` (a carried one whole, a store failure as `.storage`).
    /// The caller closes `changes.closes` itself (they need its reason).
    func transaction<R>(_ body: (inout ChangeSet) throws(StoreError) -> R) throws(EngineError)
        -> (result: R, changes: ChangeSet) {
        var changes = ChangeSet()
        let result = try storage { () throws(StoreError) -> R in
            try store.transaction { () throws(StoreError) -> R in try body(&changes) }
        }
        committed(changes)
        return (result, changes)
    }

    /// Inside a transaction's body: `body` in a savepoint with a change set of its own, appended to
    /// `changes` when the savepoint is released and dropped when it is rolled back (`enabled` false: no
    /// savepoint, `body` writes into `changes` directly and a throw is undone by the enclosing scope).
    func savepoint<R>(_ enabled: Bool = true, _ changes: inout ChangeSet,
                      _ body: (inout ChangeSet) throws(StoreError) -> R) throws(StoreError) -> R {
        guard enabled else { return try body(&changes) }
        var own = ChangeSet()
        let result = try store.savepoint { () throws(StoreError) -> R in try body(&own) }
        changes.append(own)
        return result
    }

    /// What a committed transaction (or a released savepoint of a group member) changed, handed on: to the
    /// open group, or — outside any — applied to the wheel now, its settled closes queued.
    private func committed(_ changes: ChangeSet) {
        if openGroup != nil {
            openGroup?.changes.append(changes)
        } else {
            changes.applyWheelChanges(to: &wheel)
            settledCloses += changes.settled
        }
    }

    /// Runs a scope of `group` (`member` false: `body` in the store's transaction) or `groupMember` (true:
    /// in a savepoint); the calls inside add their change sets to a fresh `OpenGroup`, which is handed on
    /// (`committed`) when the scope succeeds and dropped when it throws.
    func groupScope<R>(member: Bool, _ body: () throws(EngineError) -> R) throws(EngineError) -> R {
        let outer = openGroup
        openGroup = OpenGroup(inMember: member)
        let result: R
        do {
            result = try storage { () throws(StoreError) -> R in
                member ? try store.savepoint { () throws(StoreError) -> R in try wrap(body) }
                    : try store.transaction { () throws(StoreError) -> R in try wrap(body) }
            }
        } catch {
            openGroup = outer
            throw error
        }
        let changes = openGroup?.changes ?? ChangeSet()
        openGroup = outer
        committed(changes)
        return result
    }

    /// Runs store calls, mapping failures to `EngineError.storage` (the store's error is kept as `cause`;
    /// an engine error carried through the store comes out whole). Opens no transaction: reads, and store
    /// calls inside a transaction's body.
    func storage<R>(_ body: () throws(StoreError) -> R) throws(EngineError) -> R { try storeCalls(body) }

    /// Runs engine code inside a store transaction body, carrying its error as a `StoreError`.
    func wrap<R>(_ body: () throws(EngineError) -> R) throws(StoreError) -> R {
        do { return try body() } catch { throw StoreError(carrying: error) }
    }

    /// Whether a throw from an engine call starting now undoes everything it wrote without a savepoint of
    /// its own: no group is open (the call's own transaction rolls back), or the call runs directly inside
    /// a `groupMember` (its savepoint rolls back).
    var failureUndoesCall: Bool { openGroup.map(\.inMember) ?? true }
}

/// Runs store calls, mapping failures to `EngineError.storage` (the store's error kept as `cause`; an
/// engine error carried through the store comes out whole). `EngineState.storage` and `Quota` use it.
func storeCalls<R>(_ body: () throws(StoreError) -> R) throws(EngineError) -> R {
    do {
        return try body()
    } catch {
        if let carried = error.carried { throw carried }
        throw EngineError(.storage, error.message, cause: error)
    }
}
