import SchedCalendar

extension PushDecoder {
    static let localMembers: [String] = [
        "id", "at", "calendar", "timeZone", "until", "title", "body", "data", "cancelOn", "graceSeconds",
        "urgency", "icon", "category", "actions", "snoozeSeconds",
    ]
    static let actionMembers = ["id", "title"]

    /// `bk.local`, rule by rule in the order of CONTRACT §1's table.
    static func decodeLocal(_ members: [JSONMember], zones: any ZoneResolver,
                            unknown: inout [String]) throws(PushError) -> LocalSchedule {
        let local = try PushObject(members, path: "bk.local", known: localMembers, unknown: &unknown)

        let id = try local.requiredString("id")
        try PushRules.identifier(id, local.path("id"), maxBytes: maxIdBytes)

        let trigger: Trigger
        var calendarZone: String?
        switch (local.has("at"), local.has("calendar")) {
        case (true, false):
            let text = try local.requiredString("at")
            let written = try parseTime(text, local.path("at"))
            if let zoneName = try local.string("timeZone") {
                guard written.offsetSeconds == nil else {
                    throw PushError(local.path("timeZone"), "not allowed with a fixed-offset \"at\"")
                }
                try checkZone(zoneName, zones, local.path("timeZone"))
            }
            trigger = .at(oneShot(written, floatingZone: try local.string("timeZone")))
        case (false, true):
            let text = try local.requiredString("calendar")
            try hint(text, local.path("calendar"))
            let spec: CalendarSpec
            do throws(CalendarError) {
                spec = try CalendarSpec(parsing: text, zones: zones)
            } catch {
                // The member path already says "calendar"; drop the parser's own stage prefix.
                var rule = Substring(error.message)
                if rule.hasPrefix("calendar: ") { rule = rule.dropFirst("calendar: ".count) }
                throw PushError(local.path("calendar"), String(rule))
            }
            if let zoneName = spec.timeZoneName { try checkZone(zoneName, zones, local.path("calendar")) }
            if try local.string("timeZone") != nil {
                throw PushError(local.path("timeZone"),
                                "not allowed with \"calendar\" (end the expression with the zone instead)")
            }
            calendarZone = spec.timeZoneName
            trigger = .calendar(text)
        default:
            throw PushError("bk.local", "exactly one of \"at\" and \"calendar\" is required")
        }

        var until: OneShotTime?
        if let text = try local.string("until") {
            guard case .calendar = trigger else { throw PushError(local.path("until"), "only allowed with \"calendar\"") }
            until = oneShot(try parseTime(text, local.path("until")), floatingZone: calendarZone)
        }

        let title = try local.requiredString("title")
        try PushRules.text(title, local.path("title"), maxBytes: maxTitleBytes)
        let body = try local.string("body")
        if let body { try PushRules.text(body, local.path("body"), maxBytes: maxBodyBytes) }

        var dataJSON: String?
        if let data = try local.object("data") {
            let value = JSONValue.object(data)
            try PushRules.uniqueKeys(value, local.path("data"))
            let text = value.serialized()
            if text.utf8.count > maxDataBytes {
                throw PushError(local.path("data"), "larger than \(maxDataBytes) bytes serialized")
            }
            dataJSON = text
        }

        var cancelOn: [String] = []
        if let items = try local.array("cancelOn") {
            guard items.count <= maxCancelOnEvents else {
                throw PushError(local.path("cancelOn"), "more than \(maxCancelOnEvents) events")
            }
            for (i, item) in items.enumerated() {
                guard case .string(let name) = item else {
                    throw PushError(local.path("cancelOn") + "[\(i)]", "must be a string")
                }
                try PushRules.identifier(name, local.path("cancelOn") + "[\(i)]", maxBytes: maxEventNameBytes)
                cancelOn.append(name)
            }
        }

        var graceSeconds: Int64?
        if let value = local.value("graceSeconds") {
            graceSeconds = try parseGrace(value, local.path("graceSeconds"))
        }

        var urgency = Urgency.normal
        if let text = try local.string("urgency") {
            guard let u = Urgency(rawValue: text) else {
                throw PushError(local.path("urgency"), "must be one of low, normal, critical")
            }
            urgency = u
        }

        let icon = try local.string("icon")
        if let icon { try hint(icon, local.path("icon")) }
        let category = try local.string("category")
        if let category { try hint(category, local.path("category")) }

        var actions: [NotificationAction] = []
        if let items = try local.array("actions") {
            actions = try decodeActions(items, local.path("actions"), unknown: &unknown)
        }

        var snoozeSeconds: [Int64] = []
        if let items = try local.array("snoozeSeconds") {
            snoozeSeconds = try decodeSnoozes(items, local.path("snoozeSeconds"))
        }

        var schedule = LocalSchedule(id: id, trigger: trigger, until: until, title: title, body: body, dataJSON: dataJSON,
                                     cancelOn: cancelOn, graceSeconds: graceSeconds, urgency: urgency, icon: icon,
                                     category: category, actions: actions,
                                     fingerprint: JSONValue.object(members).serialized(sortedKeys: true))
        schedule.snoozeSeconds = snoozeSeconds
        return schedule
    }

    /// `actions`: at most 3 `{"id","title"}` objects with unique ids.
    static func decodeActions(_ items: [JSONValue], _ member: @autoclosure () -> String,
                              unknown: inout [String]) throws(PushError) -> [NotificationAction] {
        guard items.count <= maxActions else { throw PushError(member(), "more than \(maxActions) actions") }
        var actions: [NotificationAction] = []
        for (i, item) in items.enumerated() {
            let path = member() + "[\(i)]"
            guard case .object(let members) = item else { throw PushError(path, "must be an object") }
            let action = try PushObject(members, path: path, known: actionMembers, unknown: &unknown)
            let id = try action.requiredString("id")
            try PushRules.identifier(id, action.path("id"), maxBytes: maxActionIdBytes)
            if actions.contains(where: { $0.id == id }) {
                throw PushError(action.path("id"), "duplicate action id \(PushError.quoted(id))")
            }
            let title = try action.requiredString("title")
            guard !title.isEmpty else { throw PushError(action.path("title"), "must not be empty") }
            try PushRules.text(title, action.path("title"), maxBytes: maxHintBytes)
            actions.append(NotificationAction(id: id, title: title))
        }
        return actions
    }

    /// `graceSeconds`: a JSON number written as a plain non-negative integer, at most `maxGraceSeconds`.
    static func parseGrace(_ value: JSONValue, _ member: @autoclosure () -> String) throws(PushError) -> Int64 {
        guard case .number(let literal) = value,
              literal.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else {
            throw PushError(member(), "must be an integer ≥ 0")
        }
        // The grammar allows no leading zeros, so more than 10 digits already exceeds the cap;
        // checking the length first keeps `Int64(_:)` from ever overflowing.
        guard literal.utf8.count <= 10, let seconds = Int64(literal), seconds <= maxGraceSeconds else {
            throw PushError(member(), "larger than \(maxGraceSeconds)")
        }
        return seconds
    }

    static func hint(_ s: String, _ member: @autoclosure () -> String) throws(PushError) {
        try PushRules.text(s, member(), maxBytes: maxHintBytes)
        if s.unicodeScalars.contains(where: PushRules.isControl) {
            throw PushError(member(), "contains a control character")
        }
    }

    /// A fixed instant (written with an offset) must lie in `Instant.supportedRange` (CONTRACT §9:
    /// out-of-range times are errors that name the limit): `9999-12-31T23:59:59-23:59` is year 10000.
    static func parseTime(_ text: String, _ member: @autoclosure () -> String) throws(PushError) -> ISODateTime {
        let written: ISODateTime
        do throws(WallTimeParseError) {
            written = try ISODateTime(parsing: text)
        } catch {
            throw PushError(member(), error.description)
        }
        if let instant = written.instant, !instant.isSupported {
            throw PushError(member(), "\(instant.rfc3339) is outside the supported range \(Instant.supportedRangeDescription)")
        }
        return written
    }

    static func oneShot(_ written: ISODateTime, floatingZone: String?) -> OneShotTime {
        if let offset = written.offsetSeconds {
            return .fixed(written.wall.instant(offsetSeconds: offset), offsetSeconds: offset)
        }
        return .floating(written.wall, zone: floatingZone)
    }

    static func checkZone(_ name: String, _ zones: any ZoneResolver,
                          _ member: @autoclosure () -> String) throws(PushError) {
        do throws(ZoneError) {
            _ = try zones.zone(named: name)
        } catch {
            throw PushError(member(), "unknown time zone \(PushError.quoted(name))")
        }
    }
}
