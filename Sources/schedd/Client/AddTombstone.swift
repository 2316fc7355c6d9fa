import ScheddBus
import SchedCalendar
import ScheddService
import Scheduler

/// `add` whose push came back `cancelled` (a tombstone blocked it: silently, CONTRACT §1, right for
/// machines, wrong for a person) asks the daemon which tombstone (`Tombstone`): `add` exits 1 naming
/// the cancel — when and why — and how to proceed; with `--replace` this lifts the id's own tombstone
/// (`Unblock`: the id is new again, its old pushes forgotten) and returns, and add pushes once more.
/// A run's tombstone is not lifted: it guards every id of the run.
func explainTombstone(_ id: String, session: DaemonSession, clock: DaemonClock, replace: Bool) throws(CommandFailure) {
    let text = try session.string("Tombstone", { m throws(BusError) in try m.append(id) })
    let value = try DaemonSession.json(text, "Tombstone")
    guard value[member: "blocked"] == .bool(true) else {
        throw .rejected("--id \(id): blocked by a cancel's tombstone that has expired since; nothing was scheduled: run add again")
    }
    let kind = value[member: "kind"]?.stringValue ?? "id"
    let name = value[member: "name"]?.stringValue ?? id
    let when = value[member: "at"]?.stringValue.flatMap { instant(fromTimeText: $0, in: .utc) }.map(clock.local) ?? "?"
    let until = value[member: "until"]?.stringValue.flatMap { instant(fromTimeText: $0, in: .utc) }.map(clock.local) ?? "?"
    let why = value[member: "reason"]?.stringValue.map { " (\($0))" } ?? ""
    if kind == "run" {
        throw .rejected("--id \(id): blocked by the cancel of run '\(name)' on \(when)\(why): every id of a cancelled run "
                        + "stays blocked until \(until), so that late copies of its pushes stay cancelled; choose an id "
                        + "outside run '\(name)' (--replace lifts only an id's own block)")
    }
    guard replace else {
        throw .rejected("--id \(id): blocked by its cancel on \(when)\(why): a cancelled id stays blocked until \(until), "
                        + "so that late copies of its pushes stay cancelled; add --replace to lift the block and schedule "
                        + "it, or choose another --id")
    }
    _ = try session.string("Unblock", { m throws(BusError) in try m.append(id) })
}
