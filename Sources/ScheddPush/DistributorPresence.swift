/// The UnifiedPush distributors on the bus as schedd has seen them, and whom it trusts to speak for them.
///
/// Pure state, fed by the bus driver's answers (`ListNames`, `ListActivatableNames`, `GetNameOwner`) and
/// `NameOwnerChanged` signals; `PushConnector` asks it who may deliver for a distributor and which one to
/// register with. Invariants: every name in `running` is a distributor name (`DistributorChoice`); its owner
/// is "" until learned; a name in `unconfirmed` is running, and its new owner's `Message`s are refused until
/// that owner answers a Register with REGISTRATION_SUCCEEDED (issue 31: a process that takes a
/// distributor's name over must not inherit its apps' pushes). Every operation is O(1) but `choice`
/// (O(distributors)).
struct DistributorPresence {
    /// Distributor names on the bus now, with their unique owner ("" until it is known).
    private(set) var running: [String: String] = [:]
    /// Distributor names the bus can start.
    var activatable: [String] = []
    /// The owner each name had when last seen, to tell a change of owner.
    private var knownOwners: [String: String] = [:]
    /// Names whose owner changed while schedd ran, with the new owner, until it confirms a registration.
    private var unconfirmed: [String: String] = [:]

    /// What a `NameOwnerChanged` meant.
    enum Change: Equatable {
        /// The name left the bus: its apps need another distributor.
        case left
        /// The name appeared, or came back with the owner it had.
        case appeared
        /// Another connection owns the name now; it is not trusted until it confirms a registration.
        case ownerChanged(before: String)
    }

    /// `name` is on the bus (ListNames), its owner not known yet unless it was.
    mutating func listed(_ name: String) {
        running[name] = running[name] ?? ""
    }

    /// The bus said `owner` owns `name`. Ignored unless the owner is still unknown (a
    /// `NameOwnerChanged` that came first is newer). Returns whether it was taken.
    @discardableResult
    mutating func learned(owner: String, of name: String) -> Bool {
        guard running[name] == "" else { return false }
        running[name] = owner
        knownOwners[name] = owner
        return true
    }

    /// `NameOwnerChanged(name, old, new)` for a distributor name.
    mutating func ownerChanged(name: String, old: String, new: String) -> Change {
        if new.isEmpty {
            running[name] = nil
            unconfirmed[name] = nil
            return .left
        }
        running[name] = new
        defer { knownOwners[name] = new }
        if let before = knownOwners[name] ?? (old.isEmpty ? nil : old), before != new {
            unconfirmed[name] = new
            return .ownerChanged(before: before)
        }
        return .appeared
    }

    /// Whether `name` is on the bus.
    func isRunning(_ name: String) -> Bool { running[name] != nil }

    /// The owner trusted to speak for `distributor`: its known unique name, nil while unknown or when the
    /// distributor is not on the bus. Nothing from a distributor is accepted while this is nil.
    func owner(of distributor: String) -> String? {
        guard let owner = running[distributor], !owner.isEmpty else { return nil }
        return owner
    }

    /// Whether `owner`, the owner of `distributor`, took the name over and has not confirmed a
    /// registration yet: its `Message`s are refused.
    func isUnconfirmed(_ distributor: String, owner: String) -> Bool {
        unconfirmed[distributor] == owner
    }

    /// A Register answered REGISTRATION_SUCCEEDED by `sender` for `distributor`: when `sender` is the
    /// unconfirmed new owner, it is trusted from now on and returned (for the log); nil otherwise.
    mutating func confirmed(_ distributor: String, by sender: String?) -> String? {
        guard let pending = unconfirmed[distributor], sender == pending else { return nil }
        unconfirmed[distributor] = nil
        return pending
    }

    /// The distributor the rule picks now (`DistributorChoice`), given the registration's `current` one
    /// and the daemon's `override`.
    func choice(for current: String?, override: String?) -> Result<String, PushConnectorError> {
        DistributorChoice.choose(running: Array(running.keys), activatable: activatable,
                                 override: override, current: current)
    }
}
