import SchedCalendar
import Scheduler

/// `Tombstone` and `Unblock` (README, D-Bus API): what blocks an id, for `schedd add`, and lifting an
/// id's own tombstone (`add --replace`). Both act in the caller's app.
extension Service {
    /// `Tombstone(s id) → s`: `{"blocked":false}`, or `{"blocked":true,"kind":"id"|"run","name",
    /// "at","reason","until"}` for the tombstone that blocks a push with `id` (`reason` null when the
    /// cancel's history record is gone or there was none: a cancel of nothing pending).
    func tombstoneJSON(app: String, id: String) throws(ServiceFailure) -> String {
        let found = try engineCall { _ throws(EngineError) in try engine().blockingTombstone(id: id, app: app) }
        guard let found else { return JSONValue.object([JSONMember("blocked", .bool(false))]).serialized() }
        return JSONValue.object([
            JSONMember("blocked", .bool(true)), JSONMember("kind", .string(found.kind == .id ? "id" : "run")),
            JSONMember("name", .string(found.name)), JSONMember("at", .string(found.at.rfc3339)),
            JSONMember("reason", found.reason.map(JSONValue.string) ?? .null),
            JSONMember("until", .string(found.keptUntil.rfc3339)),
        ]).serialized()
    }

    /// `Unblock(s id) → s`: `{"id","unblocked":true|false}`; lifts `id`'s own tombstone and forgets its
    /// earlier pushes (Engine.unblock). Durable before the reply.
    func unblockJSON(app: String, id: String) throws(ServiceFailure) -> String {
        let lifted = try engineCall { now throws(EngineError) in try engine().unblock(id: id, app: app, now: now) }
        return JSONValue.object([JSONMember("id", .string(id)), JSONMember("unblocked", .bool(lifted))]).serialized()
    }
}
