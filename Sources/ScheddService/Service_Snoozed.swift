import SchedCalendar
import Scheduler

/// `Snoozed(u limit) → s` and `SnoozedAllApps(u limit) → s` (README, D-Bus API): the notifications a
/// person snoozed, which are in no pending list, for `schedd list`.
extension Service {
    /// `[{"id","title","until","due","app"}]`, soonest back first: at most `limit` rows (0 or more than
    /// `ReplyBounds.maxRows`: that many), cut to one reply page (`ReplyBounds.maxBytes`). `due` is the
    /// occurrence that was snoozed, `until` when it comes back. Of `app` (nil: of every app).
    func snoozedJSON(app: String?, limit: UInt32) throws(ServiceFailure) -> String {
        let rows = limit == 0 ? ReplyBounds.maxRows : min(Int(limit), ReplyBounds.maxRows)
        let found = try engineCall { _ throws(EngineError) in try engine().snoozedList(app: app, limit: rows) }
        let serialized = found.map { item in
            JSONValue.object([
                JSONMember("id", .string(item.notification.id)), JSONMember("title", .string(item.notification.title)),
                JSONMember("until", .instant(item.until)), JSONMember("due", .instant(item.notification.due)),
                JSONMember("app", .string(item.notification.app)),
            ]).serialized()
        }
        return jsonArray(serialized.prefix(rowsFittingOnePage(serialized)))
    }
}
