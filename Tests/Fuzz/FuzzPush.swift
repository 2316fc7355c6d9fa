// libFuzzer harness for the push decoder and the JSON parser under it (scripts/fuzz.sh push).
//
// Checks, for every input:
// - `JSONValue.parse` and `PushDecoder.decode` return or throw; they never trap, hang or leak.
// - JSON round trip: a parsed value serializes to text that parses back to the same value, and the
//   canonical (sorted-keys) serialization is a fixed point.
// - Push round trip: a decoded `bk.local` re-decodes from its own fingerprint to the same schedule
//   (the fingerprint is the canonical text of `bk.local`, so it must be a valid `bk.local` itself;
//   `data` is compared in canonical key order), with the same fingerprint.
// - A decoded `calendar` trigger parses with `CalendarSpec(parsing:, zones: ZoneDatabase.shared)` (the decoder promises it does).
import SystemZones
import SchedCalendar
import Scheduler

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPush(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    checkJSONRoundTrip(bytes)
    checkPushDecode(bytes)
    return 0
}

func checkJSONRoundTrip(_ bytes: [UInt8]) {
    let value: JSONValue
    do throws(JSONError) {
        value = try JSONValue.parse(bytes, maxDepth: PushDecoder.maxDepth)
    } catch {
        _ = error.description
        return
    }
    let compact = value.serialized()
    guard let again = try? JSONValue.parse(compact, maxDepth: PushDecoder.maxDepth) else {
        fatalError("JSON round trip: serialized form does not parse: \(compact)")
    }
    guard again == value else { fatalError("JSON round trip: value changed: \(compact)") }
    let canonical = value.serialized(sortedKeys: true)
    guard let sorted = try? JSONValue.parse(canonical, maxDepth: PushDecoder.maxDepth),
          sorted.serialized(sortedKeys: true) == canonical else {
        fatalError("JSON canonical form is not a fixed point: \(canonical)")
    }
}

func checkPushDecode(_ bytes: [UInt8]) {
    let push: Push
    do throws(PushError) {
        push = try PushDecoder.decode(bytes, zones: ZoneDatabase.shared)
    } catch {
        _ = error.description
        return
    }
    guard push.local != nil || push.cancel != nil else { fatalError("decoded push has neither local nor cancel") }
    guard let local = push.local else { return }
    if case .calendar(let text) = local.trigger {
        do throws(CalendarError) { _ = try CalendarSpec(parsing: text, zones: ZoneDatabase.shared) } catch {
            fatalError("decoder accepted a calendar the parser rejects: \(error)")
        }
    }
    let wrapped = Array(("{\"bk\":{\"local\":" + local.fingerprint + "}}").utf8)
    let again: Push
    do throws(PushError) {
        again = try PushDecoder.decode(wrapped, zones: ZoneDatabase.shared)
    } catch {
        fatalError("fingerprint does not re-decode: \(error): \(local.fingerprint)")
    }
    guard let reread = again.local, canonicalData(reread) == canonicalData(local) else {
        fatalError("fingerprint re-decodes to a different schedule: \(local.fingerprint)")
    }
}

/// `local` with `dataJSON` in canonical key order: `dataJSON` keeps the sender's member order,
/// which the (sorted) fingerprint does not, so only its canonical form survives the round trip.
func canonicalData(_ local: LocalSchedule) -> LocalSchedule {
    var copy = local
    if let text = local.dataJSON {
        guard let value = try? JSONValue.parse(text, maxDepth: PushDecoder.maxDepth) else {
            fatalError("dataJSON does not parse: \(text)")
        }
        copy.dataJSON = value.serialized(sortedKeys: true)
    }
    return copy
}
