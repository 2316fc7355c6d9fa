import SchedCalendar

/// Decodes and validates one silent push (CONTRACT §1) into a `Push`.
///
/// Every rule of the contract's table is enforced; the first broken rule is thrown as a
/// `PushError` naming the member and the rule. Rules are checked in a fixed order (size, JSON,
/// root, `bk`, `bk.cancel`, `bk.messageId`, then `bk.local` in table order), so the same bad push
/// always gives the same error.
///
/// Decisions where the contract is silent (also in the README):
/// - **Strict JSON** (RFC 8259, see `JSONValue.parse`), nesting at most 64 levels in the whole push.
/// - **Duplicate member names** inside `bk` (at any depth, `data` included) and a duplicate root `bk`
///   are rejected; other root members belong to the sender and are not looked at.
/// - **`null` is not absence**: an optional member given as `null` has the wrong type.
/// - **`bk` must hold `local`, `cancel` or both**; a `bk` with neither does nothing and is rejected.
/// - **`timeZone`** is allowed only with a floating `at`: with a fixed-offset `at` it contradicts the
///   offset, and a calendar expression carries its own zone suffix (`… Europe/Berlin`).
/// - **`until`** written without an offset floats in the calendar's zone (its suffix, else the
///   device zone).
/// - **Fractional seconds** in `at`/`until` are accepted (1–9 digits, truncated to microseconds):
///   JavaScript's `toISOString()` always writes them. See `ISODateTime`.
/// - **`graceSeconds`** must be written as a plain integer (`10`, not `10.0`, `1e1` or `"10"`),
///   at most `maxGraceSeconds`.
/// - **Caps not in the table**, each to bound storage and display: `icon`, `category`, `calendar`,
///   `messageId` and action titles ≤ 1 KiB; action ids 1–128 bytes. `cancelOn` names, action ids
///   and cancel ids/runs follow the id rule (no control characters), and so do `icon`, `category`
///   and `calendar` (they are names, and error messages quote them). Displayed text (`title`,
///   `body`, action titles, `messageId`) may hold newlines but not U+0000, which a D-Bus string
///   cannot carry.
///
/// Cost: linear in the push's size (at most 64 KiB); never traps on any input.
public enum PushDecoder {
    /// The largest push accepted: 64 KiB.
    public static let maxPushBytes = 65_536
    /// Nesting limit for the whole push (root object = level 1).
    public static let maxDepth = 64
    /// `bk.local.id` and `bk.cancel.id`/`run`: 1–200 bytes.
    public static let maxIdBytes = 200
    public static let maxTitleBytes = 1_024
    public static let maxBodyBytes = 8_192
    /// `data`, measured as its compact serialization.
    public static let maxDataBytes = 16_384
    public static let maxCancelOnEvents = 32
    public static let maxEventNameBytes = 128
    public static let maxActions = 3
    public static let maxActionIdBytes = 128
    /// `icon`, `category`, `messageId`, action titles and `calendar`.
    public static let maxHintBytes = 1_024
    /// `bk.deepLink` and `bk.image`: 4 KiB (PATH_MAX is 4096; browsers cut URLs far beyond what a
    /// notification needs).
    public static let maxLinkBytes = 4_096
    /// `bk.action.name`: 1–128 bytes, no control characters (the app's own action name).
    public static let maxAppActionNameBytes = 128
    public static let maxSnoozes = 2
    /// `snoozeSeconds` range: 60 s – 7 days (CONTRACT §1).
    public static let snoozeRange: ClosedRange<Int64> = 60...604_800
    /// 100 Julian years. Keeps `due + grace` in microseconds far inside `Int64`.
    public static let maxGraceSeconds: Int64 = 3_155_760_000

    static let bkKnown: [StaticString] = ["local", "cancel", "messageId", "deepLink", "action", "image"]
    static let cancelMembers: [StaticString] = ["id", "run"]
    /// The `PushObject` slots of `bkKnown`'s names (their indices; `PushDecoderTapeTests` checks the two agree).
    enum BKMember { static let local = 0, cancel = 1, messageId = 2, deepLink = 3, action = 4, image = 5 }
    /// The slots of `cancelMembers`' names.
    enum CancelMember { static let id = 0, run = 1 }

    /// The error for a push over `maxPushBytes` (`push: larger than 65536 bytes`), for readers that
    /// reject it before holding all of it.
    public static let tooLarge = PushError("push", "larger than \(maxPushBytes) bytes")

    /// Decodes `bytes` (UTF-8 JSON) into a validated `Push`, or throws the first rule it breaks. Zone
    /// names (`timeZone`, a calendar's zone suffix) are checked through `zones` — the engine's resolver
    /// (`Engine.zones`), so the decoder and the engine agree on which zones exist.
    public static func decode(_ bytes: [UInt8], zones: any ZoneResolver) throws(PushError) -> Push {
        try decode(bytes[...], zones: zones)
    }

    /// Decodes any collection of bytes (`ArraySlice`, `UnsafeRawBufferPointer` from a fuzzer or a
    /// D-Bus message); the same rules as `decode(_: [UInt8])`. With `memoizingDigest`, the schedule's
    /// digest is computed and kept as the value is built (`LocalSchedule.memoizeDigest`): the daemon
    /// needs it for every push, and setting it afterwards through `push.local?` copied the schedule out and
    /// back. Without it (the CLI) nothing is hashed.
    public static func decode(_ bytes: some Collection<UInt8>, zones: any ZoneResolver,
                              memoizingDigest: Bool = false) throws(PushError) -> Push {
        guard bytes.count <= maxPushBytes else { throw tooLarge }
        // The push is returned straight out of the closure (a `Result` would hold a copy of it).
        do {
            let decode = { (buffer: UnsafeBufferPointer<UInt8>) throws(PushError) -> Push in
                try PushDecoder.decode(buffer: buffer, zones: zones, memoizingDigest: memoizingDigest)
            }
            if let push = try bytes.withContiguousStorageIfAvailable(decode) { return push }
            return try Array(bytes).withUnsafeBufferPointer(decode)
        } catch let error as PushError {
            throw error
        } catch {
            throw PushError("push", "\(error)")  // not reached: the decoder throws only PushError
        }
    }

    /// The decoder proper, over the push's bytes as a `JSONTape` (no `JSONValue` tree: member names are
    /// compared as bytes, strings become `String`s only when kept, and `data` and the fingerprint are written
    /// from the raw bytes).
    private static func decode(buffer: UnsafeBufferPointer<UInt8>, zones: any ZoneResolver,
                               memoizingDigest: Bool) throws(PushError) -> Push {
        let tape: JSONTape
        do throws(JSONError) {
            tape = try JSONTape(parsing: buffer, maxDepth: maxDepth)
        } catch {
            throw PushError(syntax: error)
        }
        guard tape[0].kind == .object else { throw PushError("push", "must be a JSON object") }

        var bkNode: Int?
        var key = 1
        for _ in 0..<tape[0].count {
            if tape.text(key, equals: "bk") {
                guard bkNode == nil else { throw PushError("push", "duplicate member \"bk\"") }
                bkNode = key + 1
            }
            key = tape.entry(after: key, inObject: true)
        }
        guard let bkNode else { throw PushError("bk", "required") }
        guard tape[bkNode].kind == .object else { throw PushError("bk", "must be an object") }

        // Built from locals at the end (mutating a `Push` in place made the compiler copy it).
        var unknown: [String] = []
        let bk = try PushObject(tape, bkNode, path: "bk", known: bkKnown, unknown: &unknown)
        guard bk.has(BKMember.local) || bk.has(BKMember.cancel) else {
            throw PushError("bk", "one of \"local\" and \"cancel\" is required")
        }
        var cancel: CancelRequest?
        if let node = try bk.object(BKMember.cancel) {
            cancel = try decodeCancel(tape, node, unknown: &unknown)
        }
        let messageId = try bk.string(BKMember.messageId)
        if let messageId {
            try PushRules.text(messageId, bk.path(BKMember.messageId), maxBytes: maxHintBytes)
        }
        let extras = try decodeExtras(bk, unknown: &unknown)
        var local: LocalSchedule?
        if let node = try bk.object(BKMember.local) {
            local = try decodeLocal(tape, node, zones: zones, memoizingDigest: memoizingDigest, unknown: &unknown)
        }
        return Push(cancel: cancel, local: local, messageId: messageId, extras: extras, unknownMembers: unknown)
    }

    /// `bk.cancel`: `{"id": …}` xor `{"run": …}`, each following the id rule.
    static func decodeCancel(_ tape: JSONTape, _ node: Int, unknown: inout [String]) throws(PushError) -> CancelRequest {
        let cancel = try PushObject(tape, node, path: "bk.cancel", known: cancelMembers, unknown: &unknown)
        switch (try cancel.string(CancelMember.id), try cancel.string(CancelMember.run)) {
        case (let id?, nil):
            try PushRules.identifier(id, cancel.path(CancelMember.id), maxBytes: maxIdBytes)
            return .id(id)
        case (nil, let run?):
            try PushRules.identifier(run, cancel.path(CancelMember.run), maxBytes: maxIdBytes)
            return .run(run)
        default:
            throw PushError("bk.cancel", "exactly one of \"id\" and \"run\" is required")
        }
    }
}
