import ScheddBus
import Scheduler

/// Distributors: which are on the bus, registering with one, following them as they come and go.
extension PushConnector {
    static let busDriver = BusMethod(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                     interface: "org.freedesktop.DBus", member: "ListNames")

    /// Asks the bus which distributors run and which it can start; then re-registers every stored
    /// registration (at start, with the same token: the spec's "On Application Startup").
    func listDistributors() throws(BusError) {
        var activatableMethod = Self.busDriver
        activatableMethod.member = "ListActivatableNames"
        try bus.callAsync(activatableMethod, timeoutMicroseconds: 10_000_000, { _ throws(BusError) in }) {
            [weak self] result in
            guard let self else { return }
            if case .success(let reply) = result, let names = try? reply.readStrings() {
                distributors.activatable = names.filter(DistributorChoice.isDistributorName)
            }
        }
        try bus.callAsync(Self.busDriver, timeoutMicroseconds: 10_000_000, { _ throws(BusError) in }) {
            [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let reply):
                for name in ((try? reply.readStrings()) ?? []) where DistributorChoice.isDistributorName(name) {
                    distributors.listed(name)
                    learnOwner(of: name)
                }
            case .failure(let error):
                host.log(.warning, "cannot list the distributors on the bus: \(error)")
            }
            reregisterAll(reason: "start")
        }
    }

    /// Asks the bus who owns `name` (for the sender check of NewEndpoint/Unregistered); until the
    /// answer, or when it fails, the owner stays unknown and the check is skipped.
    func learnOwner(of name: String) {
        var method = Self.busDriver
        method.member = "GetNameOwner"
        try? bus.callAsync(method, timeoutMicroseconds: 10_000_000, { m throws(BusError) in try m.append(name) }) {
            [weak self] result in
            guard let self, case .success(let reply) = result, let owner = try? reply.readString() else { return }
            distributors.learned(owner: owner, of: name)
        }
    }

    /// Registers every stored registration again with the same token.
    func reregisterAll(reason: String) {
        let records: [PushRegistrationRecord]
        do { records = try store.registrations.all() } catch {
            host.log(.error, "cannot read the push registrations: \(error.message)")
            return
        }
        if !records.isEmpty { host.log(.info, "registering \(records.count) app(s) for pushes again (\(reason))") }
        for record in records { register(record) }
    }

    /// `NameOwnerChanged(name, old, new)` for a distributor name.
    func nameOwnerChanged(_ signal: BusMessage) {
        guard let name = try? signal.readString(), let old = try? signal.readString(),
              let new = try? signal.readString(), DistributorChoice.isDistributorName(name) else { return }
        let records = (try? store.registrations.all()) ?? []
        switch distributors.ownerChanged(name: name, old: old, new: new) {
        case .left:
            host.log(.info, "the distributor \(name) left the bus")
            // Its apps move to another distributor when there is one (never past an override).
            for record in records where record.distributor == name {
                if case .success(let other) = choice(for: nil), other != name { register(record) } else {
                    states[record.app] = .noDistributor("the distributor \(name) left the bus")
                }
            }
            return
        case .ownerChanged(let before):
            // Another connection owns the name now (a restart, or a process that took it over): it is
            // trusted with the apps' messages only once it confirms their registration (issue 31).
            host.log(.warning, "the distributor \(name) changed owner (\(before) → \(new)); its apps are registered "
                     + "again, and messages from the new owner are refused until it confirms a registration")
        case .appeared:
            host.log(.info, "the distributor \(name) appeared")
        }
        for record in records {
            let waitingForOne: Bool = switch states[record.app] {
            case .noDistributor?, .failed?: true
            default: false
            }
            // Its own apps register again to fetch their endpoint; apps without a usable distributor
            // register with whatever the rule now chooses.
            if record.distributor == name || waitingForOne || record.distributor.map({ !distributors.isRunning($0) }) ?? true {
                register(record)
            }
        }
    }

    /// The distributor the rule picks now (DistributorChoice), given the registration's current one.
    func choice(for current: String?) -> Result<String, PushConnectorError> {
        distributors.choice(for: current, override: host.preferredDistributor)
    }

    /// Sends Register for `record` to the distributor the rule picks (saving that choice first), and
    /// answers the app calls waiting on this token when the distributor answers.
    func register(_ original: PushRegistrationRecord) {
        var record = original
        let target: String
        switch choice(for: record.distributor) {
        case .success(let name): target = name
        case .failure(let error):
            states[record.app] = .noDistributor(error.message)
            host.log(.warning, "cannot register \(record.app) for pushes: \(error.message)")
            answerWaiters(token: record.token)
            return
        }
        if record.distributor != target {
            if record.distributor != nil { record.endpoint = nil }
            record.distributor = target
            record.updated = host.now()
            let chosen = record
            do throws(StoreError) {
                try host.storage.reporting("saving \(target) as the push distributor of \(record.app)") {
                    () throws(StoreError) in try store.registrations.save(chosen)
                }
            } catch {
                states[record.app] = .failed("cannot store the registration: \(error.message)")
                answerWaiters(token: record.token)
                return
            }
        }
        states[record.app] = .registering
        let method = BusMethod(destination: target, path: Self.distributorPath, interface: Self.distributor2,
                               member: "Register")
        let arguments: [(key: String, value: BusVariant)] = [
            ("service", .string(host.serviceName)), ("token", .string(record.token)),
            ("description", .string(record.description.isEmpty ? record.app : record.description)),
        ]
        do {
            try bus.callAsync(method, timeoutMicroseconds: Self.distributorCallMicroseconds,
                              { m throws(BusError) in try m.append(variants: arguments) }) {
                [weak self] result in self?.registerAnswered(app: record.app, token: record.token, distributor: target, result)
            }
        } catch {
            states[record.app] = .failed("cannot call \(target): \(error)")
            answerWaiters(token: record.token)
        }
    }

    /// The distributor answered Register (`{success, reason}`) or the call failed.
    func registerAnswered(app: String, token: String, distributor: String, _ result: Result<BusMessage, BusError>) {
        switch result {
        case .success(let reply):
            let answer = (try? reply.readVariantDictionary()) ?? [:]
            let success = answer["success"]?.string ?? ""
            if success == "REGISTRATION_SUCCEEDED" {
                if let pending = distributors.confirmed(distributor, by: reply.sender) {
                    host.log(.info, "the new owner \(pending) of \(distributor) confirmed the registration of \(app)")
                }
                let known = (try? store.registrations.record(token: token))?.endpoint != nil
                states[app] = known ? .registered : .registering
                host.log(.info, "\(distributor) registered \(app) for pushes")
                if known { answerWaiters(token: token) }
                return
            }
            let reason = answer["reason"]?.string ?? "no reason given"
            states[app] = .failed("\(distributor) refused the registration: \(success.isEmpty ? "no answer" : success) (\(reason))")
        case .failure(let error):
            states[app] = .failed("Register on \(distributor) failed: \(error.detail)")
        }
        host.log(.warning, "cannot register \(app) for pushes: \(states[app]?.reason ?? "")")
        answerWaiters(token: token)
    }
}
