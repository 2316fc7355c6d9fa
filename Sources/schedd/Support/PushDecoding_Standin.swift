// STAND-IN: delete when `PushDecoder.decode(bytes) throws(PushError) -> Push` lands from branch
// `payload`; `decodePush` is the only call site. It checks the main rules of CONTRACT §1 only.
import SchedCalendar
import Scheduler

/// Decodes and validates one push; the failure message names the member and the rule.
func decodePush(_ bytes: [UInt8]) -> Result<Push, PushRejection> {
    guard bytes.count <= 65536 else { return .failure(PushRejection("push: larger than 64 KiB")) }
    let root: JSONValue
    switch parseJSON(String(decoding: bytes, as: UTF8.self)) {
    case .success(let value): root = value
    case .failure(let failure): return .failure(PushRejection("push: \(failure.message)"))
    }
    do throws(PushRejection) {
        var decoder = StandinDecoder()
        return .success(try decoder.decode(root))
    } catch {
        return .failure(error)
    }
}

/// Why a push was rejected.
struct PushRejection: Error, Sendable { var message: String; init(_ m: String) { message = m } }

private struct StandinDecoder {
    var unknown: [String] = []

    mutating func object(_ value: JSONValue?, _ path: String, known: Set<String>) throws(PushRejection) -> [JSONMember] {
        guard case .object(let members)? = value else { throw PushRejection("\(path): must be an object") }
        for m in members where !known.contains(m.key) { unknown.append("\(path).\(m.key)") }
        return members
    }

    func string(_ v: JSONValue?, _ path: String, max: Int, required: Bool = false) throws(PushRejection) -> String? {
        guard let v else {
            if required { throw PushRejection("\(path): required") }
            return nil
        }
        guard case .string(let s) = v else { throw PushRejection("\(path): must be a string") }
        if s.utf8.count > max { throw PushRejection("\(path): longer than \(max) bytes") }
        return s
    }

    func time(_ text: String, _ path: String, zone: String?) throws(PushRejection) -> OneShotTime {
        switch parseTimeText(text) {
        case .floating(let civil, _)?: return .floating(civil, zone: zone)
        case let fixed?: return fixed
        case nil: throw PushRejection("\(path): expected YYYY-MM-DDTHH:MM[:SS] with optional Z or ±HH:MM")
        }
    }

    mutating func decode(_ root: JSONValue) throws(PushRejection) -> Push {
        guard case .object = root else { throw PushRejection("push: must be a JSON object") }
        let bk = try object(root[member: "bk"], "bk", known: ["local", "cancel", "messageId"])
        _ = bk
        var push = Push()
        push.messageId = try string(root[member: "bk"]?[member: "messageId"], "bk.messageId", max: 200)
        if let cancelValue = root[member: "bk"]?[member: "cancel"] {
            _ = try object(cancelValue, "bk.cancel", known: ["id", "run"])
            if let id = try string(cancelValue[member: "id"], "bk.cancel.id", max: 200) {
                push.cancel = .id(id)
            } else if let run = try string(cancelValue[member: "run"], "bk.cancel.run", max: 200) {
                push.cancel = .run(run)
            } else {
                throw PushRejection("bk.cancel: needs id or run")
            }
        }
        if let local = root[member: "bk"]?[member: "local"] {
            push.local = try decodeLocal(local)
        }
        if push.cancel == nil && push.local == nil { throw PushRejection("bk: needs local or cancel") }
        push.unknownMembers = unknown
        return push
    }

    mutating func decodeLocal(_ local: JSONValue) throws(PushRejection) -> LocalSchedule {
        let p = "bk.local"
        _ = try object(local, p, known: ["id", "at", "calendar", "timeZone", "until", "title", "body", "data",
                                         "cancelOn", "graceSeconds", "urgency", "icon", "category", "actions"])
        let id = try string(local[member: "id"], "\(p).id", max: 200, required: true)!
        if id.isEmpty || id.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw PushRejection("\(p).id: must be 1–200 bytes without control characters")
        }
        let title = try string(local[member: "title"], "\(p).title", max: 1024, required: true)!
        let zone = try string(local[member: "timeZone"], "\(p).timeZone", max: 200)
        if let zone {
            do { _ = try ZoneDatabase.shared.zone(named: zone) } catch { throw PushRejection("\(p).timeZone: \(error.message)") }
        }
        let at = try string(local[member: "at"], "\(p).at", max: 64)
        let calendar = try string(local[member: "calendar"], "\(p).calendar", max: 1024)
        let trigger: Trigger
        switch (at, calendar) {
        case (let at?, nil): trigger = .at(try time(at, "\(p).at", zone: zone))
        case (nil, let calendar?):
            do { _ = try CalendarSpec(parsing: calendar) } catch { throw PushRejection("\(p).calendar: \(error.message)") }
            trigger = .calendar(calendar)
        default: throw PushRejection("\(p): needs exactly one of at and calendar")
        }
        var schedule = LocalSchedule(id: id, trigger: trigger, title: title,
                                     fingerprint: local.serialized(sortedKeys: true))
        if let until = try string(local[member: "until"], "\(p).until", max: 64) {
            schedule.until = try time(until, "\(p).until", zone: zone)
        }
        schedule.body = try string(local[member: "body"], "\(p).body", max: 8192)
        schedule.icon = try string(local[member: "icon"], "\(p).icon", max: 1024)
        schedule.category = try string(local[member: "category"], "\(p).category", max: 1024)
        if let data = local[member: "data"] {
            guard case .object = data else { throw PushRejection("\(p).data: must be an object") }
            schedule.dataJSON = data.serialized()
        }
        if let events = local[member: "cancelOn"] {
            guard let items = events.arrayValue, items.count <= 32 else {
                throw PushRejection("\(p).cancelOn: must be an array of at most 32 event names")
            }
            for item in items {
                guard let name = item.stringValue, (1...128).contains(name.utf8.count) else {
                    throw PushRejection("\(p).cancelOn: event names are strings of 1–128 bytes")
                }
                schedule.cancelOn.append(name)
            }
        }
        if let grace = local[member: "graceSeconds"] {
            guard let text = grace.numberText, let value = Int64(text), value >= 0 else {
                throw PushRejection("\(p).graceSeconds: must be an integer ≥ 0")
            }
            schedule.graceSeconds = value
        }
        if let urgency = try string(local[member: "urgency"], "\(p).urgency", max: 16) {
            guard let u = Urgency(rawValue: urgency) else { throw PushRejection("\(p).urgency: must be low, normal or critical") }
            schedule.urgency = u
        }
        return schedule
    }
}
