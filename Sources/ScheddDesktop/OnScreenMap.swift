import Scheduler

/// The notifications one notifier believes are on screen on the current server instance: schedd's
/// (app, schedule id) ↔ the server's id, what is shown under each server id (as shown: for snooze and
/// opening), which server ids had an action invoked, and the activation tokens waiting for their
/// `ActionInvoked`.
///
/// Shape: a pure value owned by `DesktopNotifier`, changed by it and by `InteractionDecoder`.
/// Invariants: every server id in `serverIds` values that is still on screen has an entry in `shown`;
/// `actionInvoked` and `tokens` only name server ids of `shown` (`forget` removes all three together);
/// `clear` empties everything (a new server's ids mean nothing for the old one's). Two apps may both
/// show `run_1:a`: the key is (app, id). Every operation is O(1) except `clear` (O(n)).
struct OnScreenMap {
    /// (app, schedule id) of a notification, compared byte for byte as the store compares ids: Swift's
    /// `String` equality is canonical equivalence, under which the two schedules `é` (U+00E9) and `e` +
    /// U+0301 would share one entry and the second would replace the first on screen.
    struct Key: Hashable {
        var app: String
        var id: String

        static func == (a: Key, b: Key) -> Bool {
            a.app.utf8.elementsEqual(b.app.utf8) && a.id.utf8.elementsEqual(b.id.utf8)
        }

        func hash(into hasher: inout Hasher) {
            for byte in app.utf8 { hasher.combine(byte) }
            hasher.combine(0xFF as UInt8)  // no UTF-8 byte: ends the app, so ("ab", "c") ≠ ("a", "bc")
            for byte in id.utf8 { hasher.combine(byte) }
        }
    }

    private var serverIds: [Key: UInt32] = [:]
    private var shown: [UInt32: DueNotification] = [:]
    private var actionInvoked: Set<UInt32> = []
    private var tokens: [UInt32: String] = [:]

    /// The server id of schedule `id` of `app` believed on screen, nil when none.
    func serverId(app: String, id: String) -> UInt32? { serverIds[Key(app: app, id: id)] }

    /// What is on screen under `serverId`, nil when nothing this notifier showed.
    func notification(shownAs serverId: UInt32) -> DueNotification? { shown[serverId] }

    /// Every notification on screen (for the alarms a departing server drops).
    var onScreen: [DueNotification] { Array(shown.values) }

    /// The server answered Notify for `notification` with `serverId`: it is on screen under that id, the
    /// schedule's previous server id (a replaced notification) is forgotten, and the id starts clean
    /// (no action, no token).
    mutating func shown(_ notification: DueNotification, as serverId: UInt32) {
        let key = Key(app: notification.app, id: notification.id)
        if let old = serverIds[key], old != serverId { shown[old] = nil }
        serverIds[key] = serverId
        shown[serverId] = notification
        actionInvoked.remove(serverId)
        tokens[serverId] = nil
    }

    /// Takes schedule `id` of `app` off the map (schedd closes it); returns the server id it had.
    mutating func removeSchedule(app: String, id: String) -> UInt32? {
        guard let serverId = serverIds.removeValue(forKey: Key(app: app, id: id)) else { return nil }
        forget(serverId)
        return serverId
    }

    /// Takes `notification`, shown as `serverId`, off the map (answered, snoozed or closed by the server).
    mutating func remove(_ notification: DueNotification, shownAs serverId: UInt32) {
        serverIds[Key(app: notification.app, id: notification.id)] = nil
        forget(serverId)
    }

    /// Forgets what is on screen under `serverId` (its action mark and token with it).
    mutating func forget(_ serverId: UInt32) {
        shown[serverId] = nil
        actionInvoked.remove(serverId)
        tokens[serverId] = nil
    }

    /// Marks that an action of `serverId` was invoked: its later close is not a dismissal.
    mutating func markActionInvoked(_ serverId: UInt32) { actionInvoked.insert(serverId) }

    /// Whether an action of `serverId` was invoked.
    func actionWasInvoked(_ serverId: UInt32) -> Bool { actionInvoked.contains(serverId) }

    /// Keeps the activation token the server sent for `serverId` until its `ActionInvoked`.
    mutating func keep(token: String, for serverId: UInt32) { tokens[serverId] = token }

    /// The activation token kept for `serverId`, removed.
    mutating func takeToken(for serverId: UInt32) -> String? { tokens.removeValue(forKey: serverId) }

    /// Empties the map: the server instance is gone.
    mutating func clear() {
        serverIds.removeAll()
        shown.removeAll()
        actionInvoked.removeAll()
        tokens.removeAll()
    }
}
