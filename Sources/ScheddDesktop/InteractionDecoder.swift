import Scheduler

/// A signal of the notification server about one of its notifications (the sender already checked:
/// only the current server instance's signals get here).
enum ServerInteraction: Equatable {
    /// `ActivationToken(id, TOKEN)` (spec 1.2: sent before `ActionInvoked`).
    case activationToken(id: UInt32, token: String)
    /// `ActionInvoked(id, KEY)`.
    case actionInvoked(id: UInt32, key: String)
    /// `NotificationClosed(id, REASON)`.
    case closed(id: UInt32, reason: UInt32)
}

/// What the notifier does for an interaction, in order.
enum InteractionStep: Equatable {
    /// CloseNotification for this server id (the notification is hidden).
    case close(serverId: UInt32)
    /// Report this interaction (a dismissal) to the outcome stream.
    case report(DesktopNotifier.Interaction)
    /// Report a snooze of `notification` (as shown) for `seconds`.
    case snooze(DueNotification, seconds: Int64)
    /// Open the app of `notification` for action `key` (then report `.opened` with what ran).
    case open(DueNotification, key: String, token: String?)
    /// Show this alarm again (`AlarmReshow` bounds it).
    case reshowAlarm(DueNotification, why: String)
}

/// ActionInvoked / NotificationClosed / ActivationToken → what the person did and what the notifier
/// does about it. Shape: pure (a function over the on-screen map and the alarm re-show counts, no bus).
///
/// | signal | steps |
/// |---|---|
/// | `ActivationToken(id, TOKEN)` | none: the token is kept for the `ActionInvoked` that follows |
/// | `ActionInvoked(id, KEY)` | open the app for `KEY` (`default` = the body was clicked); reported `.opened`, reason `action:KEY`, once opening is known |
/// | `ActionInvoked(id, schedd-snooze-S)` (S offered) | close, snooze for S |
/// | `NotificationClosed(id, 2)` dismissed by the user | `.dismissed` — unless an action was invoked first (servers close a notification after its action: that is `opened` only) |
/// | `NotificationClosed(id, 1)` expired, `(id, 4)` undefined | nothing (the id is forgotten); an alarm is shown again |
/// | `ActionInvoked(id, schedd-dismiss)` on an alarm | close, `.dismissed` with reason `action:schedd-dismiss` |
/// | any `ActionInvoked` on an alarm | the alarm's re-show count starts again; an opened alarm is also closed (it would ring on) |
/// | `NotificationClosed(id, 3)` closed by CloseNotification | nothing: schedd (a cancel) closed it |
///
/// Signals for ids not in the map give no step. O(1) per signal.
enum InteractionDecoder {
    /// NotificationClosed reasons (spec 1.2): 1 expired, 2 dismissed by the user, 3 CloseNotification, 4 undefined.
    static let closedReasonExpired: UInt32 = 1
    static let closedReasonDismissed: UInt32 = 2
    static let closedReasonUndefined: UInt32 = 4

    /// The key of an alarm in `AlarmReshow`.
    static func alarmKey(_ n: DueNotification) -> String { n.app + "\u{0}" + n.id }

    /// The steps for `signal`, updating `onScreen` and `reshows` as the table says.
    static func decode(_ signal: ServerInteraction, onScreen: inout OnScreenMap,
                       reshows: inout AlarmReshow) -> [InteractionStep] {
        switch signal {
        case .activationToken(let serverId, let token):
            if onScreen.notification(shownAs: serverId) != nil && !token.isEmpty { onScreen.keep(token: token, for: serverId) }
            return []
        case .actionInvoked(let serverId, let key):
            guard let notification = onScreen.notification(shownAs: serverId) else { return [] }
            onScreen.markActionInvoked(serverId)
            let alarm = notification.extras.alarm
            if alarm { reshows.reset(alarmKey(notification)) }
            if alarm && key == AlarmPresentation.dismissKey {
                // Answered: hidden, recorded as dismissed (the close that follows is ours, reason 3).
                onScreen.remove(notification, shownAs: serverId)
                return [.close(serverId: serverId),
                        .report(DesktopNotifier.Interaction(app: notification.app, id: notification.id, event: .dismissed,
                                                            reason: "action:\(key)"))]
            }
            if let seconds = NotifyRequest.snoozeSeconds(ofKey: key), notification.extras.snoozeSeconds.contains(seconds) {
                // Hidden; it comes back from the engine after `seconds`.
                onScreen.remove(notification, shownAs: serverId)
                return [.close(serverId: serverId), .snooze(notification, seconds: seconds)]
            }
            let open = InteractionStep.open(notification, key: key, token: onScreen.takeToken(for: serverId))
            guard alarm else { return [open] }
            // Opened is an answer: a resident alarm would otherwise stay on screen, ringing.
            onScreen.remove(notification, shownAs: serverId)
            return [open, .close(serverId: serverId)]
        case .closed(let serverId, let reason):
            guard let notification = onScreen.notification(shownAs: serverId) else { return [] }
            let hadAction = onScreen.actionWasInvoked(serverId)
            onScreen.remove(notification, shownAs: serverId)
            if reason == closedReasonDismissed && !hadAction {
                if notification.extras.alarm { reshows.reset(alarmKey(notification)) }
                return [.report(DesktopNotifier.Interaction(app: notification.app, id: notification.id, event: .dismissed,
                                                            reason: nil))]
            }
            if notification.extras.alarm && !hadAction && (reason == closedReasonExpired || reason == closedReasonUndefined) {
                return [.reshowAlarm(notification, why: "the notification server closed it unanswered (reason \(reason))")]
            }
            return []
        }
    }
}
