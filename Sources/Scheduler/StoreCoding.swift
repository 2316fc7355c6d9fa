import SchedCalendar
import ScheddCrypto

/// Column encodings shared by the store and the benchmark's raw inserts.
enum StoreCoding {
    /// A list of strings as `<utf8 byte count>:<bytes>` repeated: unambiguous for any content
    /// (control characters included), and decodable in one pass. `["ab", ""]` → `2:ab0:`.
    static func encodeList(_ items: [String]) -> String {
        var out = ""
        for item in items { out += String(item.utf8.count) + ":" + item }
        return out
    }

    /// Inverse of `encodeList`; stops at the first malformed entry (never traps).
    static func decodeList(_ text: String) -> [String] {
        var items: [String] = []
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            var length = 0
            while i < bytes.count, bytes[i] != UInt8(ascii: ":") {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]), length < 1 << 40 else { return items }
                length = length * 10 + Int(bytes[i] - UInt8(ascii: "0"))
                i += 1
            }
            i += 1
            guard i + length <= bytes.count else { return items }
            items.append(String(decoding: bytes[i..<(i + length)], as: UTF8.self))
            i += length
        }
        return items
    }

    static func encodeActions(_ actions: [NotificationAction]) -> String? {
        actions.isEmpty ? nil : encodeList(actions.flatMap { [$0.id, $0.title] })
    }

    static func decodeActions(_ text: String?) -> [NotificationAction] {
        guard let text else { return [] }
        let flat = decodeList(text)
        return stride(from: 0, to: flat.count - 1, by: 2).map { NotificationAction(id: flat[$0], title: flat[$0 + 1]) }
    }

    /// A wall time as microseconds since 1970-01-01T00:00 *local* (the wall reading taken as if UTC).
    static func encodeWall(_ wall: CivilDateTime) -> Int64 {
        wall.localSeconds * 1_000_000 + Int64(wall.microsecond)
    }

    static func decodeWall(_ value: Int64) -> CivilDateTime {
        CivilDateTime(instant: Instant(microseconds: value), offsetSeconds: 0)
    }

    static func encodeUrgency(_ urgency: Urgency) -> Int64 {
        switch urgency {
        case .low: 0
        case .normal: 1
        case .critical: 2
        }
    }

    static func decodeUrgency(_ value: Int64) -> Urgency {
        switch value {
        case 0: .low
        case 2: .critical
        default: .normal
        }
    }
}

extension StoreCoding {
    /// The digest a store keeps for a push's canonical fingerprint (`LocalSchedule.fingerprint`): SHA-256 hex.
    /// Two pushes are "the same push" (CONTRACT §1) exactly when their digests are equal. O(fingerprint size).
    static func digest(ofFingerprint fingerprint: String) -> String { SHA256.hex(fingerprint) }

    /// FNV-1a (64 bit) of `text`'s UTF-8: the lookup key of a shared history payload (`payloads.hash`).
    /// Not collision-free: a lookup compares the data itself as well.
    ///
    /// Reads the string's contiguous UTF-8 eight bytes per load, each word's bytes taken in memory
    /// order, so the value is the byte-wise FNV-1a's (pinned by a test): the generic `text.utf8` iterator
    /// cost ~70 % of a firing's time in debug builds with 16 KiB data (perf, EngineGrowthTests). O(n).
    static func payloadHash(_ text: String) -> Int64 {
        var text = text
        return text.withUTF8 { bytes in
            let prime: UInt64 = 0x0000_0100_0000_01b3
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            let raw = UnsafeRawBufferPointer(bytes)
            let count = raw.count, whole = count & ~7
            var offset = 0
            while offset < whole {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                hash = (hash ^ (word & 0xff)) &* prime
                hash = (hash ^ ((word >> 8) & 0xff)) &* prime
                hash = (hash ^ ((word >> 16) & 0xff)) &* prime
                hash = (hash ^ ((word >> 24) & 0xff)) &* prime
                hash = (hash ^ ((word >> 32) & 0xff)) &* prime
                hash = (hash ^ ((word >> 40) & 0xff)) &* prime
                hash = (hash ^ ((word >> 48) & 0xff)) &* prime
                hash = (hash ^ (word >> 56)) &* prime
                offset += 8
            }
            while offset < count {
                hash = (hash ^ UInt64(raw[offset])) &* prime
                offset += 1
            }
            return Int64(bitPattern: hash)
        }
    }

    /// `due + grace` in microseconds, saturating: when a failed delivery is past its grace (never shown).
    static func graceEnd(due: Instant, graceSeconds: Int64) -> Int64 {
        let grace = min(max(0, graceSeconds), Int64.max / 2_000_000) * 1_000_000
        let (sum, overflow) = due.microseconds.addingReportingOverflow(grace)
        return overflow ? Int64.max : sum
    }
}

extension StoreCoding {
    /// `extras` as one compact JSON object (`{"deepLink":…,"action":{"name":…,"data":"<json text>"},
    /// "image":…,"snooze":[600],"alarm":true,"wake":true}`), nil when empty (stored as NULL).
    static func encode(extras: NotificationExtras) -> String? {
        guard !extras.isEmpty else { return nil }
        var members: [JSONMember] = []
        if let link = extras.deepLink { members.append(JSONMember("deepLink", .string(link))) }
        if let action = extras.action {
            var a = [JSONMember("name", .string(action.name))]
            if let data = action.dataJSON { a.append(JSONMember("data", .string(data))) }
            members.append(JSONMember("action", .object(a)))
        }
        if let image = extras.image { members.append(JSONMember("image", .string(image))) }
        if !extras.snoozeSeconds.isEmpty {
            members.append(JSONMember("snooze", .array(extras.snoozeSeconds.map { .number(String($0)) })))
        }
        if extras.alarm { members.append(JSONMember("alarm", .bool(true))) }
        if extras.wake { members.append(JSONMember("wake", .bool(true))) }
        return JSONValue.object(members).serialized()
    }

    /// The inverse of `encode(extras:)`; empty extras for NULL or a value this build cannot read.
    static func decodeExtras(_ text: String?) -> NotificationExtras {
        guard let text, case .object(let members)? = try? JSONValue.parse(text, maxDepth: 8) else {
            return NotificationExtras()
        }
        var extras = NotificationExtras()
        for m in members {
            switch (m.key, m.value) {
            case ("deepLink", .string(let s)): extras.deepLink = s
            case ("image", .string(let s)): extras.image = s
            case ("action", .object(let a)):
                var name: String?, data: String?
                for member in a {
                    if member.key == "name", case .string(let s) = member.value { name = s }
                    if member.key == "data", case .string(let s) = member.value { data = s }
                }
                if let name { extras.action = AppActionRequest(name: name, dataJSON: data) }
            case ("alarm", .bool(let b)): extras.alarm = b
            case ("wake", .bool(let b)): extras.wake = b
            case ("snooze", .array(let items)):
                extras.snoozeSeconds = items.compactMap { if case .number(let n) = $0 { Int64(n) } else { nil } }
            default: break
            }
        }
        return extras
    }
}
