import ScheddBus
import ScheddService

/// The bus side of the service: owns nothing but the path of one method call of
/// org.schedd.Scheduler1 — the caller check, the decoding (once, into `SchedulerCall`), the caller's
/// app (the identity part), the dispatch (the `Service` part, the same entry point the dispatch
/// fuzzer drives) and the reply, marshalled from the typed `CallAnswer`. Every call is kept
/// (`deferReply`) and answered once, now or later: identity may answer later, a write after its
/// group commit, a clock move after its delivery.
final class BusService {
    private let service: Service
    private let identity: Identity
    private let logger: Logger

    init(service: Service, identity: Identity, logger: Logger) {
        self.service = service; self.identity = identity; self.logger = logger
    }

    /// The method handler of org.schedd.Scheduler1: once the identity part has pinned the caller's
    /// connection (at once when it already is; Identity.admit), the caller check, decoding, dispatch.
    func handle(_ message: BusMessage) -> BusMethodResult {
        identity.admit(message) { [self] m in handleAdmitted(m) }
    }

    private func handleAdmitted(_ m: BusMessage) -> BusMethodResult {
        if let denial = identity.refusal(of: m) { return .failed(name: ServiceErrorName.accessDenied.rawValue, message: denial) }
        let call: SchedulerCall
        do throws(CallArgumentError) {
            var arguments = BusCallArguments(message: m)
            call = try SchedulerCall(member: m.member, arguments: &arguments)
        } catch {
            let failure = ServiceFailure(error)
            return .failed(name: failure.name.rawValue, message: failure.message)
        }
        let deferred = m.deferReply()
        let reply: CallReply = { [logger] result in Self.send(result, to: deferred, logger: logger) }
        if case .declareApp(let app) = call {
            identity.declare(deferred, app: app) { result in reply(result.map(CallAnswer.string)) }
        } else if call == .subscribe || call == .subscribeAllApps {
            identity.subscribe(deferred, allApps: call == .subscribeAllApps) { result in reply(result.map(CallAnswer.string)) }
        } else if call.method.actsForApp {
            identity.resolve(deferred) { [service] result in
                switch result {
                case .success(let caller): service.serve(call, caller: caller, reply: reply)
                case .failure(let failure): reply(.failure(failure))
                }
            }
        } else {
            service.serve(call, caller: nil, reply: reply)
        }
        return .deferred
    }

    /// Sends `result` as the answer of `call`; a caller gone meanwhile is logged (the effect is durable).
    static func send(_ result: Result<CallAnswer, ServiceFailure>, to call: BusDeferredCall, logger: Logger) {
        do throws(BusError) {
            switch result {
            case .success(let answer):
                try call.reply { r throws(BusError) in
                    switch answer {
                    case .string(let text): try r.append(text)
                    case .strings(let list): try r.append(list)
                    case .count(let n): try r.append(n)
                    case .listPage(let pending, let next): try r.append(pending); try r.append(next)
                    case .historyPage(let records, let next): try r.append(records); try r.append(next)
                    case .cancelled(let count, let ids, let more): try r.append(count); try r.append(ids); try r.append(more)
                    }
                }
            case .failure(let failure):
                try call.replyError(name: failure.name.rawValue, message: failure.message, details: failure.detail?.fields ?? [])
            }
        } catch {
            logger.warning("cannot answer \(call.member): \(error)")
        }
    }
}
