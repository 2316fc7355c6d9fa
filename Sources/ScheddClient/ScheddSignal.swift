import ScheddBus
import ScheddClientCore

/// A signal of org.schedd.Scheduler1, as typed values.
public enum ScheddSignal: Sendable, Equatable {
    /// `NotificationShown`: handed to the notifier.
    case shown(ShownNotification)
    /// `NotificationCancelled`: a pending schedule was cancelled (`reason`: push, cli, run, event:NAME).
    case cancelled(id: String, reason: String)
    /// `NotificationOpened`: the person invoked an action (desktop notifier).
    case opened(id: String, action: String)
    /// `NotificationDismissed`: the person closed it (desktop notifier).
    case dismissed(id: String)

    /// Decodes one signal message; nil for a member this client does not know (a newer daemon).
    init?(_ message: BusMessage) {
        let member = message.member
        guard let id = try? message.readString() else { return nil }
        switch member {
        case "NotificationShown":
            guard let text = try? message.readString(), let shown = try? ShownNotification(json: text) else { return nil }
            self = .shown(shown)
        case "NotificationCancelled": self = .cancelled(id: id, reason: (try? message.readString()) ?? "")
        case "NotificationOpened": self = .opened(id: id, action: (try? message.readString()) ?? "")
        case "NotificationDismissed": self = .dismissed(id: id)
        default: return nil
        }
    }
}
