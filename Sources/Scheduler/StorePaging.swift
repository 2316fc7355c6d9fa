import SchedCalendar

/// A position in the order of the pending list, (next due, key): a page of `List` starts just after it.
///
/// The key is the schedule's store key (its row id), unique, so the order is total and a cursor names
/// one place in it even among schedules due at the same instant. The cursor stays meaningful while the
/// list changes: rows inserted before it are not seen, rows after it are; none is seen twice unless it
/// was re-scheduled (a replaced or re-armed schedule moves to its new place). A page of one app (CONTRACT
/// §8) filters the same order: keys are unique across apps, so the cursor needs no app.
public struct PendingCursor: Hashable, Sendable {
    public var next: Instant
    public var key: Int64

    public init(next: Instant, key: Int64) { self.next = next; self.key = key }

    /// Whether this position comes strictly after `other` (it belongs to the page that starts after `other`).
    public func isAfter(_ other: PendingCursor) -> Bool { (next, key) > (other.next, other.key) }
}

extension StoredSchedule {
    /// This schedule's place in the pending order.
    public var cursor: PendingCursor { PendingCursor(next: next, key: key) }
}

/// A history record with its sequence number (append order; the cursor of `History` pages).
public struct SequencedHistoryRecord: Sendable, Hashable {
    public var seq: Int64
    public var record: HistoryRecord

    public init(seq: Int64, record: HistoryRecord) { self.seq = seq; self.record = record }
}
