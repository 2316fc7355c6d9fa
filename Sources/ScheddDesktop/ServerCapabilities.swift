import Scheduler

/// What one notifier knows of the current server instance's capabilities: the GetCapabilities answer
/// (read before the first Notify, kept until the owner changes), the GetServerInformation answer, the
/// notifications waiting for the first answer, and whether the alarm limitations were logged.
///
/// Shape: a pure value owned by `DesktopNotifier`. Invariant: `requested` is true while a
/// GetCapabilities call of this instance is in flight; `waiting` survives a change of server (the
/// next one is asked for them), everything else does not (`serverChanged`). O(1) per call except
/// taking the waiting list (O(n)).
struct ServerCapabilities {
    /// The server's capabilities, nil until read (or after the server changed).
    private(set) var known: Set<String>?
    /// GetServerInformation's answer (name, vendor, version, spec version), nil until read.
    var information: [String]?
    /// Notifications waiting for the first GetCapabilities answer.
    private(set) var waiting: [DueNotification] = []
    /// A GetCapabilities call of this instance is in flight.
    var requested = false
    /// This instance's alarm limitations were logged (once per instance).
    var alarmLimitationsLogged = false

    /// `notification` waits for the capabilities.
    mutating func wait(_ notification: DueNotification) { waiting.append(notification) }

    /// `notification` no longer waits (its request could not be sent).
    mutating func stopWaiting(_ notification: DueNotification) { waiting.removeAll { $0 == notification } }

    /// The waiting notifications, removed.
    mutating func takeWaiting() -> [DueNotification] {
        defer { waiting.removeAll() }
        return waiting
    }

    /// The server answered GetCapabilities with `capabilities`.
    mutating func answered(_ capabilities: Set<String>) { known = capabilities }

    /// The server instance changed: what was known of the old one is forgotten (not the waiting list).
    mutating func serverChanged() {
        alarmLimitationsLogged = false
        known = nil
        information = nil
        requested = false
    }
}
