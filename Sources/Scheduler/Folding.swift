import SchedCalendar

/// Why late notifications are being delivered (CONTRACT §11 "No flood"): the words of the summary.
public enum LateCause: String, Sendable, Hashable {
    /// The machine slept (logind's PrepareForSleep, the clocks' gap, or a test's `clock sleep`).
    case resume
    /// The daemon was not running.
    case start
    /// The wall clock jumped (NTP, `date -s`, `clock set`).
    case clockJump = "clock-jump"
    /// None of those: schedd ran and the clocks ran on, but the deliveries were held up (a storage failure
    /// backed off until the disk had room, a stopped or overloaded daemon). What `Engine.lateCause` falls
    /// back to once the catch-up of a start, resume or jump is done, so a later catch-up is not worded as
    /// one of them.
    case delayed

    /// "4 reminders while this computer was asleep".
    public func summaryTitle(count: Int) -> String {
        switch self {
        case .resume: "\(count) reminders while this computer was asleep"
        case .start: "\(count) reminders while schedd was not running"
        case .clockJump: "\(count) reminders the clock skipped past"
        case .delayed: "\(count) reminders delivered late"
        }
    }
}

// Folding (CONTRACT §11 "No flood"): when more than `foldThreshold` late notifications of one app are
// handed over in one commit batch (a catch-up: after sleep, at start, after a clock jump), the app gets one
// summary notification instead of each. Every one of them is still recorded `fired`, with `folded`.
extension Engine {
    /// The default of `foldThreshold`: more than 3 late notifications of one app are folded.
    public static let defaultFoldThreshold = 3
    /// The summary's id (per app): a later summary replaces an earlier one still on screen.
    public static let foldedSummaryID = "schedd:folded"
    /// Titles listed in a summary's body at most; the rest are counted ("and 6 more").
    public static let foldedTitlesShown = 5
    /// A notification is late for folding when it is handed over at least this long after its due: the
    /// engine's own line between on time and catch-up (`onTimeMicroseconds`, 1 s).
    static var foldLatenessSeconds: Double { Double(onTimeMicroseconds) / 1_000_000 }
}

/// The folding rule of one commit batch, as a value (`Engine.folding`: the engine's `foldThreshold` and
/// `lateCause` when the batch is decided). Pure: it reads and rewrites the batch's firings, nothing else.
struct Folding {
    /// More than this many late notifications of one app are folded; 0 folds nothing.
    let threshold: Int
    /// The summary's wording.
    let cause: LateCause

    /// Replaces, in `firings` (one commit batch, in due order), each app's late notifications by one
    /// summary when there are more than `threshold` of them; alarms are never folded. Returns the
    /// history seqs of the folded ones (to mark `folded`). The summary takes the place of the app's first
    /// folded notification. O(firings).
    func foldLate(_ firings: inout [Firing], now: Instant) -> [Int64] {
        guard threshold > 0, firings.count > threshold else { return [] }
        var lateByApp: [String: [Int]] = [:]
        for (index, firing) in firings.enumerated() where Self.foldable(firing.notification) {
            lateByApp[firing.notification.app, default: []].append(index)
        }
        var folded: [Int64] = []
        var replaced: [Int: Firing] = [:], dropped = Set<Int>()
        for (app, indexes) in lateByApp where indexes.count > threshold {
            let members = indexes.map { firings[$0].notification }
            let summary = Self.summary(of: members, app: app, cause: cause, now: now)
            replaced[indexes[0]] = Firing(notification: summary, graceSeconds: nil)
            dropped.formUnion(indexes.dropFirst())
            folded += indexes.map { firings[$0].historySeq }
        }
        guard !folded.isEmpty else { return [] }
        firings = firings.indices.compactMap { i in dropped.contains(i) ? nil : (replaced[i] ?? firings[i]) }
        return folded
    }

    /// Late enough to fold, and not an alarm.
    static func foldable(_ n: DueNotification) -> Bool { !n.extras.alarm && n.lateSeconds >= Engine.foldLatenessSeconds }

    /// The summary of `members` (≥ 1) of `app`: "N reminders while this computer was asleep", their titles
    /// (the first `foldedTitlesShown`, then "and K more"), shown as the app; opening it opens the app.
    static func summary(of members: [DueNotification], app: String, cause: LateCause, now: Instant) -> DueNotification {
        var lines = members.prefix(Engine.foldedTitlesShown).map { "• " + $0.title }
        if members.count > Engine.foldedTitlesShown { lines.append("and \(members.count - Engine.foldedTitlesShown) more") }
        let first = members[0]
        return DueNotification(
            app: app, id: Engine.foldedSummaryID, runId: Engine.foldedSummaryID,
            title: cause.summaryTitle(count: members.count), body: lines.joined(separator: "\n"), urgency: .normal, icon: nil, category: "x-schedd.folded", actions: [],
            dataJSON: nil, messageId: nil, due: first.due, at: first.at, lateSeconds: first.lateSeconds)
    }
}

extension Engine {
    /// The folding rule as it stands now. O(1).
    var folding: Folding { Folding(threshold: foldThreshold, cause: lateCause) }
}
