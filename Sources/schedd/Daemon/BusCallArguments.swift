import ScheddBus
import ScheddService

/// A received method call's arguments as `SchedulerCall` reads them: each string is measured before
/// it is copied, and an `as` (PushBatch) is read element by element, so a call over a cap is refused
/// after reading at most the cap (sd_bus_message_read_strv, which the daemon used before, is quadratic
/// in the number of elements in libsystemd 252: 1.5M entries took 444 s).
struct BusCallArguments: CallArguments {
    let message: BusMessage

    mutating func readString(_ what: String, maxBytes: Int) throws(CallArgumentError) -> String {
        let text = try guarded { () throws(BusError) in
            try message.withNextString { bytes in bytes.count > maxBytes ? nil : String(decoding: bytes, as: UTF8.self) }
        }
        guard let text else { throw CallArgumentError("\(what): missing") }
        guard let text else { throw .overCap(what, bytes: maxBytes) }
        return text
    }

    mutating func readStrings(_ what: String, maxCount: Int, maxBytes: Int) throws(CallArgumentError) -> [String] {
        guard try guarded({ () throws(BusError) in try message.enterContainer("a", "s") }) else {
            throw CallArgumentError("\(what): missing")
        }
        var strings: [String] = []
        var total = 0
        while true {
            let next = try guarded { () throws(BusError) in
                try message.withNextString { bytes -> String? in
                    total += bytes.count
                    guard strings.count < maxCount, total <= maxBytes else { return nil }
                    return String(decoding: bytes, as: UTF8.self)
                }
            }
            guard let next else { break }
            guard let next else {
                throw .overCap(what, entries: maxCount, bytes: maxBytes, count: strings.count + 1, total: total)
            }
            strings.append(next)
        }
        try guarded { () throws(BusError) in try message.exitContainer() }
        return strings
    }

    mutating func readUInt32() throws(CallArgumentError) -> UInt32 { try guarded { () throws(BusError) in try message.readUInt32() } }
    mutating func readUInt64() throws(CallArgumentError) -> UInt64 { try guarded { () throws(BusError) in try message.readUInt64() } }
    var isAtEnd: Bool { message.isAtEnd }

    /// A read sd-bus refuses (it checked the signature already, so this is rare) is a Usage error.
    private func guarded<T>(_ body: () throws(BusError) -> T) throws(CallArgumentError) -> T {
        do { return try body() } catch { throw CallArgumentError(error.detail) }
    }
}
