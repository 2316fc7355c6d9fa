extension PushDecoder {
    static let appActionMembers: [StaticString] = ["name", "data"]
    /// The `PushObject` slots of `appActionMembers`' names.
    enum AppActionMember { static let name = 0, data = 1 }

    /// `bk.deepLink`, `bk.action`, `bk.image` (CONTRACT §1, the rest of the envelope).
    ///
    /// Rules (the contract gives the members; the limits are schedd's, in docs/apps.md):
    /// - `deepLink`: a string of 1–4096 bytes, no control characters, shaped as an absolute URI:
    ///   `scheme:rest` with an RFC 3986 scheme (`reminders://todo/42`, `https://…`, `mailto:…`).
    /// - `action`: `{"name": …, "data": …}`; `name` 1–128 bytes without control characters: the app's
    ///   own protocol (buzzkit's `show_offer`), never checked against GAction's `A–Z a–z 0–9 - .` — an app
    ///   whose toolkit refuses it is opened with `Activate` instead (CONTRACT §8, `AppActivator`);
    ///   `data` any JSON value, at most 16 KiB serialized, no duplicate keys.
    /// - `image`: a string of 1–4096 bytes, no control characters (a path, a `file://` URI or any URL,
    ///   kept; only local ones are shown).
    static func decodeExtras(_ bk: PushObject, unknown: inout [String]) throws(PushError) -> NotificationExtras {
        var extras = NotificationExtras()
        if let link = try bk.string(BKMember.deepLink) {
            try PushRules.identifier(link, bk.path(BKMember.deepLink), maxBytes: maxLinkBytes)
            guard hasURIScheme(link) else {
                throw PushError(bk.path(BKMember.deepLink), "must be an absolute URL (scheme:…, e.g. myapp://item/42)")
            }
            extras.deepLink = link
        }
        if let members = try bk.object(BKMember.action) {
            let action = try PushObject(bk.tape, members, path: bk.path(BKMember.action), known: appActionMembers,
                                        unknown: &unknown)
            let name = try action.requiredString(AppActionMember.name)
            try PushRules.identifier(name, action.path(AppActionMember.name), maxBytes: maxAppActionNameBytes)
            var dataJSON: String?
            if let data = action.value(AppActionMember.data) {
                dataJSON = try compactData(bk.tape, data, action.path(AppActionMember.data))
            }
            extras.action = AppActionRequest(name: name, dataJSON: dataJSON)
        }
        if let image = try bk.string(BKMember.image) {
            try PushRules.identifier(image, bk.path(BKMember.image), maxBytes: maxLinkBytes)
            extras.image = image
        }
        return extras
    }

    /// `snoozeSeconds`: at most 2 distinct plain integers in 60…604800.
    static func decodeSnoozes(_ tape: JSONTape, _ items: Int, _ member: @autoclosure () -> String) throws(PushError) -> [Int64] {
        guard tape[items].count <= maxSnoozes else { throw PushError(member(), "more than \(maxSnoozes) durations") }
        var out: [Int64] = []
        var item = items + 1
        for i in 0..<tape[items].count {
            defer { item = tape.entry(after: item, inObject: false) }
            let path = member() + "[\(i)]"
            guard let digits = plainInteger(tape, item), digits.count <= 7, let seconds = decimal(digits) else {
                throw PushError(path, "must be an integer from \(snoozeRange.lowerBound) to \(snoozeRange.upperBound) (seconds)")
            }
            guard snoozeRange.contains(seconds) else {
                throw PushError(path, "must be from \(snoozeRange.lowerBound) to \(snoozeRange.upperBound) seconds (1 minute to 7 days)")
            }
            if out.contains(seconds) { throw PushError(path, "duplicate duration \(seconds)") }
            out.append(seconds)
        }
        return out
    }

    /// RFC 3986 §3.1: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` then `:` and at least one more byte.
    static func hasURIScheme(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { hasURIScheme($0) }
    }

    private static func hasURIScheme(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0, colon + 1 < bytes.count else { return false }
        let isAlpha = { (b: UInt8) in (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z") }
        guard isAlpha(bytes[0]) else { return false }
        return bytes[1..<colon].allSatisfy { b in
            isAlpha(b) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) || b == UInt8(ascii: "+")
                || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
        }
    }
}
