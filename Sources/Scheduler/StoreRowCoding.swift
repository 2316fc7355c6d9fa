import SchedCalendar
import ScheddCrypto

/// The compact row of schema v6 (`StoreMigration_V6.swift`): how a `StoredSchedule` maps onto the columns
/// `key, app, id, next_due, kind, digest, title, body, data, zone, until_zone, detail`, and digests as
/// 32-byte blobs. Shared by the store and the v6 migration, so both write the same bytes.
///
/// `detail` holds only what differs from the defaults, as `StoreCoding.encodeList` of tag/value pairs
/// (NULL when nothing does — a plain one-shot at a UTC instant):
/// `a` at instant (only when not equal to `next_due`), `o` the sender's UTC offset (fixed `at`: absent =
/// 0, empty = none; other kinds: absent = none), `s` spec, `w` wall, `u`/`U` until instant/wall, `l` last
/// due, `c` cancelOn (itself an encoded list), `g` grace, `r` urgency (absent = normal), `i` icon, `k`
/// category, `t` actions, `m` message id, `x` extras (JSON), `T` stored at (not for a fixed `at`, which
/// never uses it: read back as its `next`).
enum StoreRowCoding {
    /// Columns of `schedules` in the order `read` expects them.
    static let columns = "key, app, id, next_due, kind, digest, title, body, data, zone, until_zone, detail"

    /// The `detail` column of `s`: only what differs from the defaults, as tag/value pairs in
    /// `StoreCoding.encodeList`'s format (`DetailWriter`); nil when nothing differs. `read` is its inverse.
    static func detail(of s: StoredSchedule) -> String? {
        var w = DetailWriter()
        if let at = s.atInstant, at != s.next { w.add("a", at.microseconds) }
        if s.kind == .fixedAt {
            if s.atOffset != 0 {
                if let offset = s.atOffset { w.add("o", Int64(offset)) } else { w.add("o", "") }
            }
        } else {
            w.add("o", s.atOffset.map(Int64.init))
        }
        w.add("s", s.spec)
        w.add("w", s.wall.map(StoreCoding.encodeWall))
        w.add("u", s.untilInstant?.microseconds)
        w.add("U", s.untilWall.map(StoreCoding.encodeWall))
        w.add("l", s.lastDue?.microseconds)
        if !s.cancelOn.isEmpty { w.add("c", StoreCoding.encodeList(s.cancelOn)) }
        w.add("g", s.graceSeconds)
        if s.urgency != .normal { w.add("r", StoreCoding.encodeUrgency(s.urgency)) }
        w.add("i", s.icon)
        w.add("k", s.category)
        w.add("t", StoreCoding.encodeActions(s.actions))
        w.add("m", s.messageId)
        w.add("x", StoreCoding.encode(extras: s.extras))
        if s.kind != .fixedAt { w.add("T", s.storedAt.microseconds) }
        return w.text
    }

    /// Binds `s` to an INSERT whose parameters ?1…?11 are app, id, next_due, kind, digest, title, body,
    /// data, zone, until_zone, detail.
    static func bind(_ s: StoredSchedule, app: Int64, detail: String?, to st: SQLiteStatement) {
        st.bind(1, app)
        st.bind(2, s.id)
        st.bind(3, s.next.microseconds)
        st.bind(4, s.kind.rawValue)
        bindDigest(s.fingerprint, 5, st)
        st.bind(6, s.title)
        st.bind(7, s.body)
        st.bind(8, s.dataJSON)
        st.bind(9, s.zone)
        st.bind(10, s.untilZone)
        st.bind(11, detail)
    }

    /// The schedule in the current row of `st` (selected with `columns`), in app `appName`.
    static func read(_ st: SQLiteStatement, appName: String) -> StoredSchedule {
        let next = Instant(microseconds: st.int64(3))
        let kind = StoredTriggerKind(rawValue: st.int64(4)) ?? .fixedAt
        var fields: [String: String] = [:]
        if let detail = st.optionalString(11) {
            let flat = StoreCoding.decodeList(detail)
            for i in stride(from: 0, to: flat.count - 1, by: 2) { fields[flat[i]] = flat[i + 1] }
        }
        func instant(_ tag: String) -> Instant? { fields[tag].flatMap { Int64($0) }.map(Instant.init(microseconds:)) }
        func wall(_ tag: String) -> CivilDateTime? { fields[tag].flatMap { Int64($0) }.map(StoreCoding.decodeWall) }
        let offset: Int? = kind == .fixedAt ? (fields["o"].map { Int($0) } ?? 0) : fields["o"].flatMap { Int($0) }
        var s = StoredSchedule(
            key: st.int64(0), app: appName, id: st.string(2), kind: kind, spec: fields["s"],
            atInstant: kind == .fixedAt ? (instant("a") ?? next) : instant("a"), atOffset: offset,
            wall: wall("w"), zone: st.optionalString(9), untilInstant: instant("u"), untilWall: wall("U"),
            untilZone: st.optionalString(10), next: next, lastDue: instant("l"), title: st.string(6),
            body: st.optionalString(7), dataJSON: st.optionalString(8),
            cancelOn: fields["c"].map(StoreCoding.decodeList) ?? [], graceSeconds: fields["g"].flatMap { Int64($0) },
            urgency: fields["r"].flatMap { Int64($0) }.map(StoreCoding.decodeUrgency) ?? .normal,
            icon: fields["i"], category: fields["k"], actions: StoreCoding.decodeActions(fields["t"]),
            messageId: fields["m"], fingerprint: readDigest(st, 5),
            storedAt: instant("T") ?? next)
        s.extras = StoreCoding.decodeExtras(fields["x"])
        return s
    }

    /// What a schedule counts against its app's byte quota: the UTF-8 bytes of its id, texts and detail,
    /// plus `rowOverhead` for the fixed columns and index entries. O(size of the schedule).
    static func storedBytes(_ s: StoredSchedule, detail: String?) -> Int {
        rowOverhead + s.id.utf8.count + s.title.utf8.count + (s.body?.utf8.count ?? 0) + (s.dataJSON?.utf8.count ?? 0)
            + (s.zone?.utf8.count ?? 0) + (s.untilZone?.utf8.count ?? 0) + (detail?.utf8.count ?? 0)
    }

    /// The fixed part of `storedBytes`: key, app, due, kind, digest and the three index entries.
    static let rowOverhead = 64

    /// The SQL expression of `storedBytes` over a row's columns (`prefix` is `NEW.` or `OLD.` in triggers).
    static func storedBytesSQL(_ prefix: String) -> String {
        "(\(rowOverhead) + length(CAST(\(prefix)id AS BLOB)) + length(CAST(\(prefix)title AS BLOB))"
            + ["body", "data", "zone", "until_zone", "detail"].map { " + coalesce(length(CAST(\(prefix)\($0) AS BLOB)), 0)" }
                .joined() + ")"
    }

    /// Binds a digest: lower-case hex (what `StoreCoding.digest` makes) as its bytes, a BLOB of half the
    /// length; any other text as TEXT, so that `readDigest` gives back exactly what was bound.
    /// The bytes are decoded on the stack (SQLite copies them): no allocation, twice per push on the loop.
    static func bindDigest(_ hex: String, _ index: Int32, _ st: SQLiteStatement) {
        var text = hex
        let bound = text.withUTF8 { chars -> Bool in
            let n = chars.count / 2
            guard chars.count % 2 == 0, n > 0 else { return false }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: n) { out -> Bool in
                guard decodeHex(chars, into: out) else { return false }
                st.bind(index, blob: UnsafeRawBufferPointer(out))
                return true
            }
        }
        if !bound { st.bind(index, hex) }
    }

    /// The digest in `column`, as `bindDigest` was given it.
    static func readDigest(_ st: SQLiteStatement, _ column: Int32) -> String {
        st.isBlob(column) ? digestHex(st.optionalBlob(column) ?? []) : st.string(column)
    }

    /// Lower-case, even-length hex as its bytes; nil for anything else. O(length), one allocation.
    static func digestBytes(_ hex: String) -> [UInt8]? {
        var hex = hex
        return hex.withUTF8 { chars -> [UInt8]? in
            guard chars.count % 2 == 0, !chars.isEmpty else { return nil }
            let bytes = [UInt8](unsafeUninitializedCapacity: chars.count / 2) { out, count in
                count = decodeHex(chars, into: out) ? chars.count / 2 : 0
            }
            return bytes.count == chars.count / 2 ? bytes : nil
        }
    }

    /// Decodes `chars` (lower-case hex, even length) into the first `chars.count / 2` bytes of `out`;
    /// false when a character is not a lower-case hex digit. O(length), no allocation.
    @inline(__always)
    private static func decodeHex(_ chars: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        var bad: UInt8 = 0  // bit 0x10 set by any character that is not a lower-case hex digit
        let n = chars.count / 2
        guard n <= out.count, let from = chars.baseAddress, let to = out.baseAddress else { return n == 0 }
        for i in 0..<n {  // pointers, not subscripts: 2i + 1 < chars.count and i < out.count by the guard
            let high = nibble(from[2 &* i]), low = nibble(from[2 &* i &+ 1])
            bad |= high | low
            to[i] = high << 4 | (low & 0xF)
        }
        return bad & 0x10 == 0
    }

    /// The inverse of `digestBytes` for digests: lower-case hex.
    static func digestHex(_ bytes: [UInt8]) -> String {
        Hex.lowercase(bytes)
    }

    /// The value of a lower-case hex digit, or 0x10 for any other byte.
    @inline(__always) private static func nibble(_ c: UInt8) -> UInt8 {
        let digit = c &- UInt8(ascii: "0"), letter = c &- UInt8(ascii: "a")
        return digit < 10 ? digit : letter < 6 ? letter &+ 10 : 0x10
    }
}
