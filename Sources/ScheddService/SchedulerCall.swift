/// One call of `org.schedd.Scheduler1` with its arguments read and typed: what the daemon's method
/// dispatch works on, and what the dispatch fuzz harness (Tests/Fuzz/FuzzDispatch.swift) feeds it.
///
/// `init(member:arguments:)` reads exactly the arguments of `member`'s input signature, in order, from
/// any `CallArguments` — a received sd-bus message in the daemon, D-Bus wire bytes in the fuzzer and the
/// tests (`WireArguments`). It checks shape only (the signature, and that nothing is left over);
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
    /// `Subscribe() → s`: the connection receives its app's signals, unicast (docs/apps.md "Listening").
    case subscribe
    /// `SubscribeAllApps() → s`: every app's signals (unsandboxed callers only).
    case subscribeAllApps

    /// Every method with its D-Bus input signature, as the vtable (Sources/CSchedBus/vtable.c) declares it.
    public static let methods: [(name: String, signature: String)] = [
        ("Push", "s"), ("PushBatch", "as"), ("Track", "ss"), ("Cancel", "s"), ("CancelRun", "s"),
        ("CancelReport", "s"), ("CancelRunReport", "s"), ("List", "uu"), ("ListPage", "su"), ("History", "u"),
        ("HistoryPage", "tu"), ("ClockShow", ""), ("ClockSet", "s"), ("ClockAdvance", "t"), ("ClockNext", ""),
        ("ClockZone", "s"), ("DeclareApp", "s"), ("ListAllAppsPage", "su"),
        ("PendingCount", ""), ("PendingCountAllApps", ""), ("Subscribe", ""), ("SubscribeAllApps", ""),
    ]

    /// Reads the arguments of `member` from `arguments`; throws for an unknown member or arguments
    /// that do not match its signature.
    public init<A: CallArguments>(member: String, arguments a: inout A) throws(CallArgumentError) {
        switch member {
        case "Push": self = .push(try a.readString())
        case "PushBatch": self = .pushBatch(try a.readStrings())
        case "Track":
            let event = try a.readString(), data = try a.readString()
            self = .track(event: event, data: data.isEmpty ? nil : data)
        case "Cancel": self = .cancel(id: try a.readString())
        case "CancelRun": self = .cancelRun(run: try a.readString())
        case "CancelReport": self = .cancelReport(id: try a.readString())
        case "CancelRunReport": self = .cancelRunReport(run: try a.readString())
        case "List":
            let limit = try a.readUInt32(), offset = try a.readUInt32()
            self = .list(limit: limit, offset: offset)
        case "ListPage":
            let after = try a.readString(), limit = try a.readUInt32()
            self = .listPage(after: after, limit: limit)
        case "ListAllAppsPage":
            let after = try a.readString(), limit = try a.readUInt32()
            self = .listAllAppsPage(after: after, limit: limit)
        case "History": self = .history(limit: try a.readUInt32())
        case "HistoryPage":
            let before = try a.readUInt64(), limit = try a.readUInt32()
            self = .historyPage(before: before, limit: limit)
        case "ClockShow": self = .clockShow
        case "ClockSet": self = .clockSet(try a.readString())
        case "ClockAdvance": self = .clockAdvance(microseconds: try a.readUInt64())
        case "ClockNext": self = .clockNext
        case "ClockZone": self = .clockZone(try a.readString())
        case "DeclareApp": self = .declareApp(try a.readString())
        case "PendingCount": self = .pendingCount
        case "PendingCountAllApps": self = .pendingCountAllApps
        case "Subscribe": self = .subscribe
        case "SubscribeAllApps": self = .subscribeAllApps
        default: throw CallArgumentError("unknown method \(member)")
        }
        guard a.isAtEnd else { throw CallArgumentError("\(member): more arguments than its signature has") }
    }

    /// Whether the call changes state (so it is answered only after its commit).
    public var writes: Bool { Self.writingMethods.contains(name) }

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
        case .subscribe: "Subscribe"
        case .subscribeAllApps: "SubscribeAllApps"
        }
    }

    /// The methods that change state: their success proves that storage works.
    public static let writingMethods: Set<String> = [
        "Push", "PushBatch", "Track", "Cancel", "CancelRun", "CancelReport", "CancelRunReport", "ClockSet",
        "ClockAdvance", "ClockNext", "ClockZone",
    ]
}

/// Where a call's arguments come from, in order. Each read consumes one argument of that type.
public protocol CallArguments {
    mutating func readString() throws(CallArgumentError) -> String
    mutating func readStrings() throws(CallArgumentError) -> [String]
    mutating func readUInt32() throws(CallArgumentError) -> UInt32
    mutating func readUInt64() throws(CallArgumentError) -> UInt64
    /// True when every argument has been read.
    var isAtEnd: Bool { get }
}

/// Arguments that do not fit the method (the daemon answers `org.schedd.Scheduler1.Error.Usage`).
public struct CallArgumentError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
