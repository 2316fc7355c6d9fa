import SchedCalendar
import ScheddBus
import Scheduler

/// A write call taken off the bus and waiting for the group commit, with what is needed to answer it.
struct PendingWrite {
    enum Operation {
        /// `Push(s)`: one decoded push.
        case push(Push)
        /// `PushBatch(as)`: the decoded pushes with their index, and the answers of the rejected ones.
        case pushBatch(valid: [(index: Int, push: Push)], answers: [String?])
        /// `Track(ss)`: the event and its data (JSON text, already checked).
        case track(event: String, data: String?)
        /// `Cancel(s)` / `CancelRun(s)`.
        case cancel(id: String)
        case cancelRun(run: String)
    }
    var operation: Operation
    /// The caller's app (CONTRACT §8), attributed when the call was taken off the bus.
    var app: String
    var call: BusDeferredCall
}

/// Group commit (docs/faults.md, "Group commit"): the write calls that are waiting when the loop wakes
/// are applied in ONE transaction, then answered, each after the commit (CONTRACT §5 unchanged).
///
/// How: the write handlers decode and check their arguments, queue the call and return `.deferred`;
/// `commitTrigger` (an sd-event defer source at a lower priority than the bus) runs once the bus has
/// handed over every message already waiting, and `flushWrites` applies the queue in `Engine.group`.
/// Each call keeps its own all-or-nothing (a savepoint); a failed commit fails every call of the group
/// with the storage error. Any other call first flushes the queue, so a client that pipelines a push and
/// a `List` still sees its push. The queue is bounded by `maxGroup` calls.
extension Daemon {
    /// At most this many calls per group: bounds a group's transaction and the latency of its first call.
    static let maxGroup = 256

    /// The write methods that wait for the group commit.
    static let groupedMembers: Set<String> = ["Push", "PushBatch", "Track", "Cancel", "CancelRun"]

    /// Queues `message` when it is a write call; returns false for any other member. Arguments are
    /// decoded now: a rejected push or malformed data is answered at once, without waiting.
    func queueWrite(_ m: BusMessage) throws(ServiceFailure) -> Bool {
        let operation: PendingWrite.Operation
        guard Self.groupedMembers.contains(m.member) else { return false }
        let app = try callerApp(m).id.rawValue
        switch m.member {
        case "Push":
            operation = .push(try decodePush(m.readStringOrEmpty()))
        case "PushBatch":
            let texts = (try? m.readStrings()) ?? []
            var answers = [String?](repeating: nil, count: texts.count)
            var valid: [(index: Int, push: Push)] = []
            for (i, text) in texts.enumerated() {
                do throws(ServiceFailure) {
                    valid.append((i, try decodePush(text)))
                } catch {
                    answers[i] = JSONValue.object([JSONMember("error", .string(error.message))]).serialized()
                }
            }
            operation = .pushBatch(valid: valid, answers: answers)
        case "Track":
            let event = m.readStringOrEmpty(), data = m.readStringOrEmpty()
            if !data.isEmpty, case .failure(let failure) = parseJSON(data) {
                throw ServiceFailure(.invalidArgument, "data: \(failure.message)")
            }
            operation = .track(event: event, data: data.isEmpty ? nil : data)
        case "Cancel": operation = .cancel(id: m.readStringOrEmpty())
        case "CancelRun": operation = .cancelRun(run: m.readStringOrEmpty())
        default: return false  // not reached: groupedMembers
        }
        pendingWrites.append(PendingWrite(operation: operation, app: app, call: m.deferReply()))
        if pendingWrites.count >= Self.maxGroup {
            flushWrites()
        } else {
            do throws(BusError) {
                try commitTrigger?.trigger()
            } catch {
                logger.error("cannot schedule the group commit (\(error)): committing at once")
                flushWrites()
            }
        }
        return true
    }

    private func decodePush(_ text: String) throws(ServiceFailure) -> Push {
        do {
            return try PushDecoder.decode(Array(text.utf8), zones: engine.zones)
        } catch {
            throw ServiceFailure(.invalidPush, error.message)
        }
    }

    /// Applies every queued write in one transaction, then answers each call and announces what was
    /// cancelled. Nothing is answered before the commit.
    func flushWrites() {
        guard !pendingWrites.isEmpty else { return }
        let writes = pendingWrites
        pendingWrites.removeAll(keepingCapacity: true)
        var results: [Result<WriteAnswer, ServiceFailure>] = []
        results.reserveCapacity(writes.count)
        do throws(EngineError) {
            try engine.group { () throws(EngineError) in
                let now = clock.now
                for write in writes {
                    results.append(apply(write.operation, app: write.app, now: now))
                }
            }
            storageSucceeded()
        } catch {
            // Named by the methods of the group ("Push", or "Cancel, Push" for a mixed group).
            storageFailed(Set(writes.map(\.call.member)).sorted().joined(separator: ", "), error.message, backOff: false)
            results = writes.map { _ in .failure(ServiceFailure(error)) }
        }
        for (write, result) in zip(writes, results) {
            do throws(BusError) {
                switch result {
                case .success(let answer):
                    announce(answer, app: write.app)
                    try write.call.reply { r throws(BusError) in
                        switch answer.value {
                        case .string(let text): try r.append(text)
                        case .strings(let list): try r.append(list)
                        }
                    }
                case .failure(let failure):
                    if failure.name == .storage { storageFailed(write.call.member, failure.message, backOff: false) }
                    try write.call.replyError(name: failure.name.rawValue, message: failure.message)
                }
            } catch {
                // The caller is gone (or the bus): its effect is durable all the same.
                logger.warning("cannot answer \(write.call.member): \(error)")
            }
        }
        settle()
    }

    /// One operation inside the group; its own failure is undone alone (a savepoint) and answered.
    private func apply(_ operation: PendingWrite.Operation, app: String, now: Instant)
        -> Result<WriteAnswer, ServiceFailure> {
        do throws(EngineError) {
            return try engine.groupMember { () throws(EngineError) in try applyMember(operation, app: app, now: now) }
        } catch {
            return .failure(ServiceFailure(error))
        }
    }

    private func applyMember(_ operation: PendingWrite.Operation, app: String, now: Instant)
        throws(EngineError) -> Result<WriteAnswer, ServiceFailure> {
        do {
            switch operation {
            case .push(let push):
                let outcomes = try engine.push(push, app: app, now: now)
                return .success(WriteAnswer(value: .string(JSONValue.array(outcomes.map(JSONValue.init(outcome:))).serialized()),
                                            pushOutcomes: outcomes))
            case .pushBatch(let valid, var answers):
                // Each push on its own: one the engine rejects (over the quota) changes nothing, the others apply.
                var applied: [PushOutcome] = []
                for (item, result) in zip(valid, try engine.pushEach(valid.map(\.push), app: app, now: now)) {
                    switch result {
                    case .success(let outcomes):
                        applied += outcomes
                        answers[item.index] = JSONValue.array(outcomes.map(JSONValue.init(outcome:))).serialized()
                    case .failure(let error):
                        answers[item.index] = JSONValue.object([JSONMember("error", .string(error.message))]).serialized()
                    }
                }
                let texts = answers.map { $0 ?? JSONValue.object([JSONMember("error", .string("not processed"))]).serialized() }
                return .success(WriteAnswer(value: .strings(texts), pushOutcomes: applied))
            case .track(let event, let data):
                let ids = try engine.track(event: event, app: app, dataJSON: data, now: now)
                return .success(WriteAnswer(value: .strings(ids), cancelled: ids, reason: "event:\(event)"))
            case .cancel(let id):
                let ids = try engine.cancel(id: id, app: app, now: now)
                return .success(WriteAnswer(value: .strings(ids), cancelled: ids, reason: "cli"))
            case .cancelRun(let run):
                let ids = try engine.cancel(run: run, app: app, now: now)
                return .success(WriteAnswer(value: .strings(ids), cancelled: ids, reason: "run"))
            }
        }
    }

    private func announce(_ answer: WriteAnswer, app: String) {
        announceCancellations(in: answer.pushOutcomes, app: app)
        if !answer.cancelled.isEmpty { announceCancelled(answer.cancelled, reason: answer.reason, app: app) }
    }
}

/// The reply of one applied write, and what to announce once it is committed.
struct WriteAnswer {
    enum Value { case string(String), strings([String]) }
    var value: Value
    var pushOutcomes: [PushOutcome] = []
    var cancelled: [String] = []
    var reason = ""
}
