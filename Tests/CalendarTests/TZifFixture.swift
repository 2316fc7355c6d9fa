@testable import SchedCalendar

/// Builds TZif files in code (RFC 8536 layout), so parser tests need no binary fixtures.
struct TZifFixture {
    struct LocalType {
        var utoff: Int32
        var isdst: UInt8
        var abbreviation: String
    }

    /// 0 = version 1 (32-bit data only); 2, 3, 4 = 32-bit block, 64-bit block and footer.
    var version: UInt8 = 2
    var transitions: [Int64] = []
    var transitionTypes: [UInt8] = []
    var types: [LocalType] = [LocalType(utoff: 0, isdst: 0, abbreviation: "UTC")]
    var leapSeconds: [(occurrence: Int64, correction: Int32)] = []
    /// The footer TZ string (v2+); "" is an empty footer.
    var footer: String = ""
    /// When set, the 32-bit block of a v2+ file uses these types instead (to prove it is skipped).
    var v1Types: [LocalType]? = nil

    func bytes() -> [UInt8] {
        if version == 0 { return block(timeSize: 4, types: types) }
        var out = block(timeSize: 4, types: v1Types ?? types)
        out += block(timeSize: 8, types: types)
        out += Array("\n\(footer)\n".utf8)
        return out
    }

    private func block(timeSize: Int, types: [LocalType]) -> [UInt8] {
        // The 32-bit block holds only the transitions that fit in 32 bits.
        let keep = transitions.indices.filter { timeSize == 8 || Int64(Int32.min)...Int64(Int32.max) ~= transitions[$0] }
        var chars: [UInt8] = []
        var desig: [UInt8] = []
        for t in types {
            desig.append(UInt8(chars.count))
            chars += Array(t.abbreviation.utf8) + [0]
        }
        var out = Array("TZif".utf8) + [version == 0 ? 0 : 0x30 + version] + [UInt8](repeating: 0, count: 15)
        for count in [types.count, types.count, leapSeconds.count, keep.count, types.count, chars.count] {
            out += be(Int64(count), 4)
        }
        for i in keep { out += be(transitions[i], timeSize) }
        for i in keep { out.append(transitionTypes[i]) }
        for (t, d) in zip(types, desig) { out += be(Int64(t.utoff), 4) + [t.isdst, d] }
        out += chars
        for leap in leapSeconds { out += be(leap.occurrence, timeSize) + be(Int64(leap.correction), 4) }
        out += [UInt8](repeating: 0, count: types.count)  // isstd
        out += [UInt8](repeating: 0, count: types.count)  // isut
        return out
    }

    private func be(_ v: Int64, _ size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * $0)) }
    }

    /// New York-like data: LMT, then EST/EDT transitions in 1883, 1918 and 2007; footer US rules.
    static var newYorkLike: TZifFixture {
        var f = TZifFixture()
        f.types = [LocalType(utoff: -17762, isdst: 0, abbreviation: "LMT"),
                   LocalType(utoff: -14400, isdst: 1, abbreviation: "EDT"),
                   LocalType(utoff: -18000, isdst: 0, abbreviation: "EST")]
        f.transitions = [-2_717_650_800,  // 1883-11-18 17:00Z: LMT → EST
                         -1_633_280_400,  // 1918-03-31 07:00Z: EDT
                         -1_615_140_000,  // 1918-10-27 06:00Z: EST
                         1_173_596_400,   // 2007-03-11 07:00Z: EDT
                         1_194_156_000]   // 2007-11-04 06:00Z: EST
        f.transitionTypes = [2, 1, 2, 1, 2]
        f.footer = "EST5EDT,M3.2.0,M11.1.0"
        return f
    }
}

