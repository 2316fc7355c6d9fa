/// The one method table of org.schedd.Scheduler1: every method's name, input and reply signatures,
/// whether it writes and whether it waits for the group commit. Sources/CSchedBus/vtable.c is the
/// source of truth for the bus (sd-bus checks signatures against it); SchedulerCallTests checks this
/// table against it line by line, and the group commit, the storage-health rule ("a write that
/// succeeds proves the storage works") and the dispatch fuzzer all read this table.
public struct SchedulerMethod: Sendable, Equatable {
    public var name: String
    /// The D-Bus input signature, as the vtable declares it.
    public var signature: String
    /// The D-Bus reply signature, as the vtable declares it.
    public var reply: String
    /// The call changes state (answered only after its commit; its success proves storage works).
    public var writes: Bool
    /// The call waits for the group commit (GroupCommit.swift): applied with the other waiting writes
    /// in one transaction.
    public var grouped: Bool
    /// The call acts for the caller's app, so the identity part attributes one first (the clock
    /// methods act on the daemon; DeclareApp, Subscribe and SubscribeAllApps are the identity part's own).
    public var actsForApp: Bool
    /// The call only reads, and its answer shows nothing but the caller's app's own state: it waits
    /// only for that app's writes to be committed and on the disk, never for other apps' (one app's flood
    /// of writes on a slow disk does not delay another app's read: CONTRACT §8 "Fair service").
    public var readsOnlyCallersApp: Bool

    init(_ name: String, _ signature: String, _ reply: String, writes: Bool = false, grouped: Bool = false,
         actsForApp: Bool = true, readsOnlyCallersApp: Bool = false) {
        self.name = name; self.signature = signature; self.reply = reply
        self.writes = writes || grouped; self.grouped = grouped; self.actsForApp = actsForApp
        self.readsOnlyCallersApp = readsOnlyCallersApp && !self.writes && actsForApp
    }

    /// Every method, in the vtable's order.
    public static let all: [SchedulerMethod] = [
        SchedulerMethod("Push", "s", "s", grouped: true),
        SchedulerMethod("PushBatch", "as", "as", grouped: true),
        SchedulerMethod("Track", "ss", "uasb", grouped: true),
        SchedulerMethod("Cancel", "s", "uasb", grouped: true),
        SchedulerMethod("CancelRun", "s", "uasb", grouped: true),
        SchedulerMethod("CancelReport", "s", "s", writes: true),
        SchedulerMethod("CancelRunReport", "s", "s", writes: true),
        SchedulerMethod("List", "uu", "s", readsOnlyCallersApp: true),
        SchedulerMethod("ListPage", "su", "ss", readsOnlyCallersApp: true),
        SchedulerMethod("History", "u", "s", readsOnlyCallersApp: true),
        SchedulerMethod("HistoryPage", "tu", "st", readsOnlyCallersApp: true),
        SchedulerMethod("ClockShow", "", "s", actsForApp: false),
        SchedulerMethod("ClockSet", "s", "s", writes: true, actsForApp: false),
        SchedulerMethod("ClockAdvance", "t", "s", writes: true, actsForApp: false),
        SchedulerMethod("ClockNext", "", "s", writes: true, actsForApp: false),
        SchedulerMethod("ClockZone", "s", "s", writes: true, actsForApp: false),
        SchedulerMethod("DeclareApp", "s", "s", actsForApp: false),
        SchedulerMethod("ListAllAppsPage", "su", "ss"),
        SchedulerMethod("PendingCount", "", "u", readsOnlyCallersApp: true),
        SchedulerMethod("PendingCountAllApps", "", "u"),
        SchedulerMethod("HistoryAllAppsPage", "tu", "st"),
        SchedulerMethod("Tombstone", "s", "s", readsOnlyCallersApp: true),
        SchedulerMethod("Unblock", "s", "s", writes: true),
        SchedulerMethod("Snoozed", "u", "s", readsOnlyCallersApp: true),
        SchedulerMethod("SnoozedAllApps", "u", "s"),
        SchedulerMethod("Subscribe", "", "s", actsForApp: false),
        SchedulerMethod("SubscribeAllApps", "", "s", actsForApp: false),
        SchedulerMethod("Status", "", "s"),
        SchedulerMethod("ClockSleep", "t", "s", writes: true, actsForApp: false),
    ]

    /// The table by name.
    public static let named: [String: SchedulerMethod] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// The members that wait for the group commit.
    public static let groupedNames: Set<String> = Set(all.filter(\.grouped).map(\.name))
}

/// The caps on a call's arguments (CONTRACT §9, "Bounded replies and requests"; README, "Limits"):
/// over a cap the call is refused whole with InvalidArgument naming the cap, before anything is
/// applied, and in time linear in what was read up to the cap.
public enum CallCaps {
    /// Entries of one `PushBatch` at most.
    public static let maxBatchEntries = 10_000
    /// Bytes of one `PushBatch`'s entries in all (UTF-8, 8 MiB): a quarter of a stock bus message.
    public static let maxBatchBytes = 8 << 20
    /// Bytes of any other string argument (an id, an event, data, a cursor, a time, a zone, an app);
    /// a `Push` is capped at `PushDecoder.maxPushBytes` (64 KiB) and over it answers InvalidPush.
    public static let maxStringBytes = 65_536
}
