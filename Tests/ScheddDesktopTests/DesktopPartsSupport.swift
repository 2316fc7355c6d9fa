import SchedCalendar
import Scheduler

/// A due notification of `app` for the pure parts' tests.
func note(_ id: String, app: String = "org.example.App", alarm: Bool = false, snooze: [Int64] = []) -> DueNotification {
    let due = Instant(seconds: 1_780_000_000)  // 2026-05-28T20:26:40Z
    var n = DueNotification(app: app, id: id, runId: id, title: "T", body: nil, urgency: .normal, icon: nil, category: nil,
                            actions: [], dataJSON: nil, messageId: nil, due: due, at: due, lateSeconds: 0)
    n.extras = NotificationExtras(snoozeSeconds: snooze, alarm: alarm)
    return n
}
