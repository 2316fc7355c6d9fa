import SchedCalendar

extension PushDecoder {
    static let localNames: [StaticString] = [
        "id", "at", "calendar", "timeZone", "until", "title", "body", "data", "cancelOn", "graceSeconds",
        "urgency", "icon", "category", "actions", "snoozeSeconds", "alarm", "wake",
    ]
    /// The members of `bk.local`, as the man page and completions list them.
    static let localMembers: [String] = localNames.map(\.description)
    static let actionMembers: [StaticString] = ["id", "title"]
    /// The `PushObject` slots of `localNames`' names (their indices).
    enum LocalMember {
        static let id = 0, at = 1, calendar = 2, timeZone = 3, until = 4, title = 5, body = 6, data = 7, cancelOn = 8
        static let graceSeconds = 9, urgency = 10, icon = 11, category = 12, actions = 13, snoozeSeconds = 14
        static let alarm = 15, wake = 16
    }
    /// The slots of `actionMembers`' names.
    enum ActionMember { static let id = 0, title = 1 }

    /// `bk.local`, rule by rule in the order of CONTRACT §1's table.
    static func decodeLocal(_ tape: JSONTape, _ node: Int, zones: any ZoneResolver, memoizingDigest: Bool = false,
                            unknown: inout [String]) throws(PushError) -> LocalSchedule {
        let local = try PushObject(tape, node, path: "bk.local", known: localNames, unknown: &unknown)

        let id = try local.requiredString(LocalMember.id)
        try PushRules.identifier(id, local.path(LocalMember.id), maxBytes: maxIdBytes)

        let trigger: Trigger
        var calendarZone: String?
        var parsedCalendar: CalendarSpec?
        switch (local.has(LocalMember.at), local.has(LocalMember.calendar)) {
        case (true, false):
            let text = try local.requiredString(LocalMember.at)
            let written = try parseTime(text, local.path(LocalMember.at))
            if let zoneName = try local.string(LocalMember.timeZone) {
                guard written.offsetSeconds == nil else {
                    throw PushError(local.path(LocalMember.timeZone), "not allowed with a fixed-offset \"at\"")
                }
                try checkZone(zoneName, zones, local.path(LocalMember.timeZone))
            }
            trigger = .at(oneShot(written, floatingZone: try local.string(LocalMember.timeZone)))
        case (false, true):
            let text = try local.requiredString(LocalMember.calendar)
            try hint(text, local.path(LocalMember.calendar))
            let spec: CalendarSpec
            do throws(CalendarError) {
                spec = try CalendarSpec(parsing: text, zones: zones)
            } catch {
                // The member path already says "calendar": the expression and its rule.
                throw PushError(local.path(LocalMember.calendar), "'\(error.text)': \(error.rule)")
            }
            if let zoneName = spec.timeZoneName { try checkZone(zoneName, zones, local.path(LocalMember.calendar)) }
            if try local.string(LocalMember.timeZone) != nil {
                throw PushError(local.path(LocalMember.timeZone),
                                "not allowed with \"calendar\" (end the expression with the zone instead)")
            }
            calendarZone = spec.timeZoneName
            parsedCalendar = spec
            trigger = .calendar(text)
        default:
            throw PushError("bk.local", "exactly one of \"at\" and \"calendar\" is required")
        }

        var until: OneShotTime?
        if let text = try local.string(LocalMember.until) {
            guard case .calendar = trigger else { throw PushError(local.path(LocalMember.until), "only allowed with \"calendar\"") }
            until = oneShot(try parseTime(text, local.path(LocalMember.until)), floatingZone: calendarZone)
        }

        let title = try local.requiredString(LocalMember.title)
        try PushRules.text(title, local.path(LocalMember.title), maxBytes: maxTitleBytes)
        let body = try local.string(LocalMember.body)
        if let body { try PushRules.text(body, local.path(LocalMember.body), maxBytes: maxBodyBytes) }

        var dataJSON: String?
        if let data = try local.object(LocalMember.data) {
            dataJSON = try compactData(tape, data, local.path(LocalMember.data))
        }

        var cancelOn: [String] = []
        if let items = try local.array(LocalMember.cancelOn) {
            guard tape[items].count <= maxCancelOnEvents else {
                throw PushError(local.path(LocalMember.cancelOn), "more than \(maxCancelOnEvents) events")
            }
            cancelOn.reserveCapacity(tape[items].count)
            var item = items + 1
            for i in 0..<tape[items].count {
                guard tape[item].kind == .string else {
                    throw PushError(local.path(LocalMember.cancelOn) + "[\(i)]", "must be a string")
                }
                let name = tape.string(item)
                try PushRules.identifier(name, local.path(LocalMember.cancelOn) + "[\(i)]", maxBytes: maxEventNameBytes)
                cancelOn.append(name)
                item = tape.entry(after: item, inObject: false)
            }
        }

        var graceSeconds: Int64?
        if let value = local.value(LocalMember.graceSeconds) {
            graceSeconds = try parseGrace(tape, value, local.path(LocalMember.graceSeconds))
        }

        var urgency = Urgency.normal
        if let text = try local.string(LocalMember.urgency) {
            guard let u = Urgency(rawValue: text) else {
                throw PushError(local.path(LocalMember.urgency), "must be one of low, normal, critical")
            }
            urgency = u
        }

        let icon = try local.string(LocalMember.icon)
        if let icon { try hint(icon, local.path(LocalMember.icon)) }
        let category = try local.string(LocalMember.category)
        if let category { try hint(category, local.path(LocalMember.category)) }

        var actions: [NotificationAction] = []
        if let items = try local.array(LocalMember.actions) {
            actions = try decodeActions(tape, items, local.path(LocalMember.actions), unknown: &unknown)
        }

        var snoozeSeconds: [Int64] = []
        if let items = try local.array(LocalMember.snoozeSeconds) {
            snoozeSeconds = try decodeSnoozes(tape, items, local.path(LocalMember.snoozeSeconds))
        }

        let alarm = try local.bool(LocalMember.alarm) ?? false
        let wake = try local.bool(LocalMember.wake) ?? false

        // The fingerprint: `bk.local` in canonical form (keys sorted, compact), written from the tape.
        var canonical: [UInt8] = []
        canonical.reserveCapacity(tape.bytes.count)
        tape.write(node, into: &canonical, sortedKeys: true)
        var schedule = LocalSchedule(id: id, trigger: trigger, until: until, title: title, body: body, dataJSON: dataJSON,
                                     cancelOn: cancelOn, graceSeconds: graceSeconds, urgency: urgency, icon: icon,
                                     category: category, actions: actions,
                                     fingerprint: String(decoding: canonical, as: UTF8.self))
        schedule.snoozeSeconds = snoozeSeconds
        schedule.alarm = alarm
        schedule.wake = wake || alarm
        schedule.parsedCalendar = ParsedCalendar(parsedCalendar)
        if memoizingDigest { schedule.memoizeDigest() }
        return schedule
    }

    /// `actions`: at most 3 `{"id","title"}` objects with unique ids.
    static func decodeActions(_ tape: JSONTape, _ items: Int, _ member: @autoclosure () -> String,
                              unknown: inout [String]) throws(PushError) -> [NotificationAction] {
        guard tape[items].count <= maxActions else { throw PushError(member(), "more than \(maxActions) actions") }
        var actions: [NotificationAction] = []
        var item = items + 1
        for i in 0..<tape[items].count {
            defer { item = tape.entry(after: item, inObject: false) }
            let path = member() + "[\(i)]"
            guard tape[item].kind == .object else { throw PushError(path, "must be an object") }
            let action = try PushObject(tape, item, path: path, known: actionMembers, unknown: &unknown)
            let id = try action.requiredString(ActionMember.id)
            try PushRules.identifier(id, action.path(ActionMember.id), maxBytes: maxActionIdBytes)
            if actions.contains(where: { $0.id == id }) {
                throw PushError(action.path(ActionMember.id), "duplicate action id \(PushError.quoted(id))")
            }
            let title = try action.requiredString(ActionMember.title)
            guard !title.isEmpty else { throw PushError(action.path(ActionMember.title), "must not be empty") }
            try PushRules.text(title, action.path(ActionMember.title), maxBytes: maxHintBytes)
            actions.append(NotificationAction(id: id, title: title))
        }
        return actions
    }

    /// `graceSeconds`: a JSON number written as a plain non-negative integer, at most `maxGraceSeconds`.
    static func parseGrace(_ tape: JSONTape, _ value: Int, _ member: @autoclosure () -> String) throws(PushError) -> Int64 {
        guard let digits = plainInteger(tape, value) else { throw PushError(member(), "must be an integer ≥ 0") }
        // The grammar allows no leading zeros, so more than 10 digits already exceeds the cap;
        // checking the length first keeps the sum from ever overflowing.
        guard digits.count <= 10, let seconds = decimal(digits), seconds <= maxGraceSeconds else {
            throw PushError(member(), "larger than \(maxGraceSeconds)")
        }
        return seconds
    }

    /// The literal of number node `value` when it is written as digits only (`10`, not `-1`, `10.0`, `1e1`).
    static func plainInteger(_ tape: JSONTape, _ value: Int) -> UnsafeBufferPointer<UInt8>? {
        guard tape[value].kind == .number else { return nil }
        let literal = tape.raw(value)
        for b in literal where b &- UInt8(ascii: "0") >= 10 { return nil }
        return literal
    }

    /// The value of 1–18 decimal digits (never overflows); nil for an empty literal.
    static func decimal(_ digits: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard !digits.isEmpty, digits.count <= 18 else { return nil }
        var value: Int64 = 0
        for b in digits { value = value * 10 + Int64(b &- UInt8(ascii: "0")) }
        return value
    }

    /// A `data` value (`bk.local.data`, `bk.action.data`): no duplicate keys at any depth, at most
    /// `maxDataBytes` as its compact serialization, which is returned.
    static func compactData(_ tape: JSONTape, _ value: Int, _ member: @autoclosure () -> String) throws(PushError) -> String {
        if let duplicate = tape.firstDuplicateKeyInside(value) {
            throw PushError(member(), "duplicate member \(PushError.quoted(duplicate))")
        }
        var out: [UInt8] = []
        out.reserveCapacity(min(tape.raw(value).count + 16, maxDataBytes + 1))
        tape.write(value, into: &out, sortedKeys: false)
        if out.count > maxDataBytes {
            throw PushError(member(), "larger than \(maxDataBytes) bytes serialized")
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func hint(_ s: String, _ member: @autoclosure () -> String) throws(PushError) {
        try PushRules.text(s, member(), maxBytes: maxHintBytes)
        if PushRules.containsControl(s) {
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
