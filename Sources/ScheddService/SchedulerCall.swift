import Scheduler

/// One call of `org.schedd.Scheduler1` with its arguments read and typed: what the daemon's method
/// dispatch works on, and what the dispatch fuzz harness (Tests/Fuzz/FuzzDispatch.swift) feeds it.
///
/// `init(member:arguments:)` reads exactly the arguments of `member`'s input signature, in order, from
/// any `CallArguments` — a received sd-bus message in the daemon, D-Bus wire bytes in the fuzzer and the
/// tests (`WireArguments`). It checks shape (the signature, and that nothing is left over) and the caps
/// on sizes (`CallCaps`);
/// the rules for the values are the methods' own (PushDecoder, `ListCursorText`, `ClockArguments`, …).
public enum SchedulerCall: Sendable, Equatable {
    case push(String)
    case pushBatch([String])
    /// `data` is nil when the caller sent "" (no data).
    case track(event: String, data: String?)
    case cancel(id: String)
    case cancelRun(run: String)
    /// `CancelReport`/`CancelRunReport`: the cancel with a JSON report of what was closed.
    case cancelReport(id: String)
    case cancelRunReport(run: String)
    case list(limit: UInt32, offset: UInt32)
    case listPage(after: String, limit: UInt32)
    /// `ListAllAppsPage`: `ListPage` over every app's schedules (unsandboxed callers only).
    case listAllAppsPage(after: String, limit: UInt32)
    case history(limit: UInt32)
    case historyPage(before: UInt64, limit: UInt32)
    case clockShow
    case clockSet(String)
    case clockAdvance(microseconds: UInt64)
    case clockNext
    case clockZone(String)
    /// `DeclareApp(s app)`: the calls that follow on the connection act for `app` (docs/apps.md).
    case declareApp(String)
    /// `PendingCount() → u`: how many schedules of the caller's app are pending. O(log apps).
    case pendingCount
    /// `PendingCountAllApps() → u`: how many schedules of every app are pending (unsandboxed callers only).
    case pendingCountAllApps
    /// `HistoryAllAppsPage`: `HistoryPage` over every app's records (unsandboxed callers only).
    case historyAllAppsPage(before: UInt64, limit: UInt32)
    /// `Tombstone(s id) → s`: the tombstone that blocks a push with `id`, as JSON (`schedd add`).
    case tombstone(id: String)
    /// `Unblock(s id) → s`: lifts `id`'s own tombstone and forgets its earlier pushes (`add --replace`).
    case unblock(id: String)
    /// `Snoozed(u limit) → s`: the caller's app's snoozed notifications (`schedd list`).
    case snoozed(limit: UInt32)
    /// `SnoozedAllApps(u limit) → s`: every app's (unsandboxed callers only).
    case snoozedAllApps(limit: UInt32)
    /// `Subscribe() → s`: the connection receives its app's signals, unicast (docs/apps.md "Listening").
    case subscribe
    /// `SubscribeAllApps() → s`: every app's signals (unsandboxed callers only).
    case subscribeAllApps
    /// `Status() → s`: the daemon's state for `schedd status` (CONTRACT §11).
    case status
    /// `ClockSleep(t microseconds) → s`: the fake clock sleeps that long and resumes (`schedd clock sleep`):
    /// what fell due is late, handed over at once, folded as after a real resume.
    case clockSleep(microseconds: UInt64)

    /// Reads the arguments of `member` from `arguments`; throws for an unknown member, arguments that
    /// do not match its signature, or an argument over its cap (`CallCaps`, checked while reading, so
    /// an oversized array is never copied whole).
    public init<A: CallArguments>(member: String, arguments a: inout A) throws(CallArgumentError) {
        let s = CallCaps.maxStringBytes
        switch member {
        case "Push":
            do {
                self = .push(try a.readString("Push: push", maxBytes: PushDecoder.maxPushBytes))
            } catch where error.kind == .overCap {
                throw CallArgumentError(PushDecoder.tooLarge.description, kind: .invalidPush)
            }
        case "PushBatch":
            self = .pushBatch(try a.readStrings("PushBatch: pushes", maxCount: CallCaps.maxBatchEntries,
                                                maxBytes: CallCaps.maxBatchBytes))
        case "Track":
            let event = try a.readString("Track: event", maxBytes: s), data = try a.readString("Track: data", maxBytes: s)
            self = .track(event: event, data: data.isEmpty ? nil : data)
        case "Cancel": self = .cancel(id: try a.readString("Cancel: id", maxBytes: s))
        case "CancelRun": self = .cancelRun(run: try a.readString("CancelRun: run", maxBytes: s))
        case "CancelReport": self = .cancelReport(id: try a.readString("CancelReport: id", maxBytes: s))
        case "CancelRunReport": self = .cancelRunReport(run: try a.readString("CancelRunReport: run", maxBytes: s))
        case "List":
            let limit = try a.readUInt32(), offset = try a.readUInt32()
            self = .list(limit: limit, offset: offset)
        case "ListPage":
            let after = try a.readString("ListPage: after", maxBytes: s), limit = try a.readUInt32()
            self = .listPage(after: after, limit: limit)
        case "ListAllAppsPage":
            let after = try a.readString("ListAllAppsPage: after", maxBytes: s), limit = try a.readUInt32()
            self = .listAllAppsPage(after: after, limit: limit)
        case "History": self = .history(limit: try a.readUInt32())
        case "HistoryPage":
            let before = try a.readUInt64(), limit = try a.readUInt32()
            self = .historyPage(before: before, limit: limit)
        case "ClockShow": self = .clockShow
        case "ClockSet": self = .clockSet(try a.readString("ClockSet: time", maxBytes: s))
        case "ClockAdvance": self = .clockAdvance(microseconds: try a.readUInt64())
        case "ClockNext": self = .clockNext
        case "ClockZone": self = .clockZone(try a.readString("ClockZone: zone", maxBytes: s))
        case "DeclareApp": self = .declareApp(try a.readString("DeclareApp: app", maxBytes: s))
        case "PendingCount": self = .pendingCount
        case "PendingCountAllApps": self = .pendingCountAllApps
        case "HistoryAllAppsPage":
            let before = try a.readUInt64(), limit = try a.readUInt32()
            self = .historyAllAppsPage(before: before, limit: limit)
        case "Tombstone": self = .tombstone(id: try a.readString("Tombstone: id", maxBytes: s))
        case "Unblock": self = .unblock(id: try a.readString("Unblock: id", maxBytes: s))
        case "Snoozed": self = .snoozed(limit: try a.readUInt32())
        case "SnoozedAllApps": self = .snoozedAllApps(limit: try a.readUInt32())
        case "Subscribe": self = .subscribe
        case "SubscribeAllApps": self = .subscribeAllApps
        case "Status": self = .status
        case "ClockSleep": self = .clockSleep(microseconds: try a.readUInt64())
        default: throw CallArgumentError("unknown method \(member)")
        }
        guard a.isAtEnd else { throw CallArgumentError("\(member): more arguments than its signature has") }
    }

    /// The method table (`SchedulerMethod.all`).
    public static var methods: [SchedulerMethod] { SchedulerMethod.all }

    /// This call's entry in the method table.
    public var method: SchedulerMethod { SchedulerMethod.named[name]! }

    /// Whether the call changes state (so it is answered only after its commit).
    public var writes: Bool { method.writes }

    /// The method's name.
    public var name: String {
        switch self {
        case .push: "Push"
        case .pushBatch: "PushBatch"
        case .track: "Track"
        case .cancel: "Cancel"
        case .cancelRun: "CancelRun"
        case .cancelReport: "CancelReport"
        case .cancelRunReport: "CancelRunReport"
        case .list: "List"
        case .listPage: "ListPage"
        case .listAllAppsPage: "ListAllAppsPage"
        case .history: "History"
        case .historyPage: "HistoryPage"
        case .clockShow: "ClockShow"
        case .clockSet: "ClockSet"
        case .clockAdvance: "ClockAdvance"
        case .clockNext: "ClockNext"
        case .clockZone: "ClockZone"
        case .declareApp: "DeclareApp"
        case .pendingCount: "PendingCount"
        case .pendingCountAllApps: "PendingCountAllApps"
        case .historyAllAppsPage: "HistoryAllAppsPage"
        case .tombstone: "Tombstone"
        case .unblock: "Unblock"
        case .snoozed: "Snoozed"
        case .snoozedAllApps: "SnoozedAllApps"
        case .subscribe: "Subscribe"
        case .subscribeAllApps: "SubscribeAllApps"
        case .status: "Status"
        case .clockSleep: "ClockSleep"
        }
    }

    /// The methods that change state: their success proves that storage works (from the table).
    public static let writingMethods: Set<String> = Set(SchedulerMethod.all.filter(\.writes).map(\.name))
}

/// Where a call's arguments come from, in order. Each read consumes one argument of that type.
/// A string or array over its cap throws `CallArgumentError.overCap(…)` naming `what` and the cap,
/// before anything over the cap is copied.
public protocol CallArguments {
    mutating func readString(_ what: String, maxBytes: Int) throws(CallArgumentError) -> String
    /// An `as` argument, read element by element: at most `maxCount` strings of at most `maxBytes`
    /// bytes (UTF-8, the NULs not counted) in all.
    mutating func readStrings(_ what: String, maxCount: Int, maxBytes: Int) throws(CallArgumentError) -> [String]
    mutating func readUInt32() throws(CallArgumentError) -> UInt32
    mutating func readUInt64() throws(CallArgumentError) -> UInt64
    /// True when every argument has been read.
    var isAtEnd: Bool { get }
}

/// Arguments that do not fit the method: the wrong shape (the daemon answers
/// `org.schedd.Scheduler1.Error.Usage`), over a cap (`InvalidArgument`, the message names the cap),
/// or a push over 64 KiB (`InvalidPush`, as the decoder would say).
public struct CallArgumentError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable { case shape, overCap, invalidPush }
    public var message: String
    public var kind: Kind
    public init(_ message: String, kind: Kind = .shape) { self.message = message; self.kind = kind }
    public var description: String { message }
    public var overCap: Bool { kind == .overCap }

    /// `what` is longer than `maxBytes` bytes.
    public static func overCap(_ what: String, bytes maxBytes: Int) -> CallArgumentError {
        CallArgumentError("\(what): longer than the cap of \(maxBytes) bytes; nothing was applied", kind: .overCap)
    }

    /// `what` holds more than `maxCount` entries, or more than `maxBytes` bytes in all.
    public static func overCap(_ what: String, entries maxCount: Int, bytes maxBytes: Int, count: Int, total: Int)
        -> CallArgumentError {
        let which = count > maxCount ? "more than the cap of \(maxCount) entries"
            : "more than the cap of \(maxBytes) bytes in all"
        return CallArgumentError("\(what): \(which) (caps: \(maxCount) entries, \(maxBytes) bytes per call); "
                                 + "nothing was applied; split the batch", kind: .overCap)
    }
}
