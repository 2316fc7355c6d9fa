import SchedCalendar

/// The columns of a notification kept for later (`failed_deliveries`, `snoozed`), bound and read here only:
/// both tables hold `DueNotification`'s members under the same names and encodings (`StoreCoding`).
enum NotificationColumns {
    /// The column list, in the order `bind` binds and `read` reads them (12 columns).
    static let names = "app, id, title, body, urgency, icon, category, actions, data, message_id, due, extras"
    /// `?first, …, ?(first + 11)`: the placeholders of `names`.
    static func placeholders(from first: Int32) -> String {
        (first..<(first + count)).map { "?\($0)" }.joined(separator: ", ")
    }
    static let count: Int32 = 12

    /// Binds `n`'s columns to parameters `first` … `first + 11`.
    static func bind(_ n: DueNotification, to st: SQLiteStatement, from first: Int32) {
        st.bind(first, n.app)
        st.bind(first + 1, n.id)
        st.bind(first + 2, n.title)
        st.bind(first + 3, n.body)
        st.bind(first + 4, StoreCoding.encodeUrgency(n.urgency))
        st.bind(first + 5, n.icon)
        st.bind(first + 6, n.category)
        st.bind(first + 7, StoreCoding.encodeActions(n.actions))
        st.bind(first + 8, n.dataJSON)
        st.bind(first + 9, n.messageId)
        st.bind(first + 10, n.due.microseconds)
        st.bind(first + 11, StoreCoding.encode(extras: n.extras))
    }

    /// The notification in result columns `first` … `first + 11` (shown at its due: `at` = `due`, not late).
    static func read(_ st: SQLiteStatement, from first: Int32) -> DueNotification {
        let id = st.string(first + 1), due = Instant(microseconds: st.int64(first + 10))
        var n = DueNotification(
            app: st.string(first), id: id, runId: runId(of: id), title: st.string(first + 2),
            body: st.optionalString(first + 3), urgency: StoreCoding.decodeUrgency(st.int64(first + 4)),
            icon: st.optionalString(first + 5), category: st.optionalString(first + 6),
            actions: StoreCoding.decodeActions(st.optionalString(first + 7)), dataJSON: st.optionalString(first + 8),
            messageId: st.optionalString(first + 9), due: due, at: due, lateSeconds: 0)
        n.extras = StoreCoding.decodeExtras(st.optionalString(first + 11))
        return n
    }
}
