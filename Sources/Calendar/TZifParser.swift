/// The decoded content of a TZif file (RFC 8536, versions 1–4).
struct TZifData: Sendable {
    /// 1…4 (a version byte of 0 is version 1).
    var version: Int
    /// Transition times in seconds, strictly ascending, in the file's time scale.
    var transitions: [Int64]
    /// For each transition, the index into `types` that takes effect.
    var transitionTypes: [Int]
    /// Local time types; never empty. Type 0 applies before the first transition.
    var types: [ZoneOffset]
    /// Leap-second records (`right/` zones): occurrence and total correction.
    var leapSeconds: [(occurrence: Int64, correction: Int64)]
    /// The v2+ footer rule for instants after the last transition; nil when absent or empty.
    var footer: PosixTZ?
}

/// Reads TZif bytes. Untrusted input never traps: every count is checked against the bytes
/// actually present before anything is allocated, so memory use is proportional to the input.
///
/// Errors are prefixed by stage: `invalid TZif header: …`, `invalid TZif data: …`,
/// `invalid TZif footer: …`.
struct TZifParser {
    private let bytes: [UInt8]
    private var pos = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// RFC 8536 §3.2: UT offsets "SHOULD" lie in [−89999, 93599] (−24:59:59 … +25:59:59);
    /// `TimeZoneRules.resolve` relies on this bound to size its search window.
    static let offsetRange = -89_999...93_599

    private struct Header {
        var version: Int
        var isutcnt = 0, isstdcnt = 0, leapcnt = 0, timecnt = 0, typecnt = 0, charcnt = 0

        /// Size in bytes of the data block that follows, for `timeSize`-byte times.
        func dataSize(timeSize: Int) -> Int {
            timecnt * timeSize + timecnt + typecnt * 6 + charcnt + leapcnt * (timeSize + 4) + isstdcnt + isutcnt
        }
    }

    mutating func parse() throws(ZoneError) -> TZifData {
        let v1 = try header(which: "")
        guard v1.version >= 2 else {
            return try data(v1, timeSize: 4, footer: nil)
        }
        pos += v1.dataSize(timeSize: 4)  // skip the 32-bit block: the 64-bit one supersedes it
        let v2 = try header(which: "64-bit ")
        let dataStart = pos
        pos += v2.dataSize(timeSize: 8)
        let footer = try readFooter()
        pos = dataStart
        return try data(v2, timeSize: 8, footer: footer)
    }

    private func fail(_ stage: String, _ what: String) -> ZoneError {
        ZoneError("invalid TZif \(stage): \(what)")
    }

    private mutating func header(which: String) throws(ZoneError) -> Header {
        let stage = which + "header"
        guard bytes.count - pos >= 44 else {
            throw fail(stage, "truncated (\(bytes.count - pos) bytes, need 44)")
        }
        guard bytes[pos..<(pos + 4)].elementsEqual("TZif".utf8) else {
            throw fail(stage, "bad magic (expected \"TZif\")")
        }
        let versionByte = bytes[pos + 4]
        var h: Header
        switch versionByte {
        case 0: h = Header(version: 1)
        case UInt8(ascii: "2")...UInt8(ascii: "4"): h = Header(version: Int(versionByte - UInt8(ascii: "0")))
        default: throw fail(stage, "unsupported version byte 0x\(String(versionByte, radix: 16))")
        }
        pos += 20
        let counts = (0..<6).map { i in Int(readUInt32(at: pos + 4 * i)) }
        pos += 24
        (h.isutcnt, h.isstdcnt, h.leapcnt, h.timecnt, h.typecnt, h.charcnt) =
            (counts[0], counts[1], counts[2], counts[3], counts[4], counts[5])
        guard h.typecnt > 0 else { throw fail(stage, "typecnt is zero") }
        guard h.typecnt <= 256 else { throw fail(stage, "typecnt \(h.typecnt) above 256") }
        guard h.isutcnt == 0 || h.isutcnt == h.typecnt else { throw fail(stage, "isutcnt is neither 0 nor typecnt") }
        guard h.isstdcnt == 0 || h.isstdcnt == h.typecnt else {
            throw fail(stage, "isstdcnt is neither 0 nor typecnt")
        }
        let need = h.dataSize(timeSize: which.isEmpty ? 4 : 8)  // counts < 2^32: no overflow in Int
        guard bytes.count - pos >= need else {
            throw fail(which + "data", "truncated (\(bytes.count - pos) bytes, header announces \(need))")
        }
        return h
    }

    private mutating func data(_ h: Header, timeSize: Int, footer: PosixTZ?) throws(ZoneError) -> TZifData {
        let stage = timeSize == 8 ? "64-bit data" : "data"
        var transitions = [Int64]()
        transitions.reserveCapacity(h.timecnt)
        for i in 0..<h.timecnt {
            let t = readTime(at: pos + i * timeSize, size: timeSize)
            if let last = transitions.last, t <= last {
                throw fail(stage, "transition times not ascending at index \(i)")
            }
            transitions.append(t)
        }
        pos += h.timecnt * timeSize
        var transitionTypes = [Int]()
        transitionTypes.reserveCapacity(h.timecnt)
        for i in 0..<h.timecnt {
            let idx = Int(bytes[pos + i])
            guard idx < h.typecnt else { throw fail(stage, "transition \(i) has type \(idx) ≥ typecnt \(h.typecnt)") }
            transitionTypes.append(idx)
        }
        pos += h.timecnt
        let typesStart = pos
        let charsStart = typesStart + h.typecnt * 6
        var types = [ZoneOffset]()
        for i in 0..<h.typecnt {
            let r = typesStart + i * 6
            let utoff = Int(Int32(bitPattern: readUInt32(at: r)))
            guard TZifParser.offsetRange.contains(utoff) else {
                throw fail(stage, "type \(i) has UT offset \(utoff) outside \(TZifParser.offsetRange)")
            }
            let isdst = bytes[r + 4]
            guard isdst <= 1 else { throw fail(stage, "type \(i) has isdst \(isdst)") }
            let desig = Int(bytes[r + 5])
            guard desig < h.charcnt else { throw fail(stage, "type \(i) designation index \(desig) ≥ charcnt") }
            let chars = bytes[(charsStart + desig)..<(charsStart + h.charcnt)]
            guard let nul = chars.firstIndex(of: 0) else {
                throw fail(stage, "type \(i) designation is not NUL-terminated")
            }
            types.append(ZoneOffset(utcOffsetSeconds: utoff, isDST: isdst == 1,
                                    abbreviation: String(decoding: bytes[(charsStart + desig)..<nul], as: UTF8.self)))
        }
        pos = charsStart + h.charcnt
        var leaps = [(occurrence: Int64, correction: Int64)]()
        for i in 0..<h.leapcnt {
            let occurrence = readTime(at: pos, size: timeSize)
            let correction = Int64(Int32(bitPattern: readUInt32(at: pos + timeSize)))
            pos += timeSize + 4
            if let last = leaps.last {
                guard occurrence > last.occurrence else { throw fail(stage, "leap second \(i) not ascending") }
                guard abs(correction - last.correction) <= 1 else {
                    throw fail(stage, "leap second \(i) changes the correction by more than 1")
                }
            }
            leaps.append((occurrence, correction))
        }
        for i in 0..<(h.isstdcnt + h.isutcnt) where bytes[pos + i] > 1 {
            throw fail(stage, "standard/wall or UT/local indicator \(i) is not 0 or 1")
        }
        pos += h.isstdcnt + h.isutcnt
        return TZifData(version: h.version, transitions: transitions, transitionTypes: transitionTypes,
                        types: types, leapSeconds: leaps, footer: footer)
    }

    /// `\n<TZ string>\n` after the 64-bit data; an empty TZ string means "no rule".
    private mutating func readFooter() throws(ZoneError) -> PosixTZ? {
        guard pos < bytes.count, bytes[pos] == UInt8(ascii: "\n") else {
            throw fail("footer", "missing (expected a newline after the 64-bit data)")
        }
        let start = pos + 1
        guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else {
            throw fail("footer", "not terminated by a newline")
        }
        guard end > start else { return nil }
        let text = String(decoding: bytes[start..<end], as: UTF8.self)
        do {
            return try PosixTZ(parsing: text)
        } catch {
            throw error.prefixed("invalid TZif footer")
        }
    }

    private func readUInt32(at i: Int) -> UInt32 {
        UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3])
    }

    private func readTime(at i: Int, size: Int) -> Int64 {
        if size == 4 { return Int64(Int32(bitPattern: readUInt32(at: i))) }
        return Int64(bitPattern: UInt64(readUInt32(at: i)) << 32 | UInt64(readUInt32(at: i + 4)))
    }
}
