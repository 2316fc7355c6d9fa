// Group commit: several calls, one transaction (CONTRACT §5 durability unchanged).
extension Engine {
    /// Runs several engine operations (pushes, cancels, tracks) in ONE store transaction: one commit, one
    /// fsync for all of them. The daemon applies every method call waiting when its loop wakes this way
    /// and answers each only after `group` returned, so every answer still follows durability.
    ///
    /// Each operation inside runs through `groupMember`, which keeps its own all-or-nothing (a savepoint
    /// and its wheel changes): one that throws is undone alone and `body` may go on with the others. If the
    /// commit itself fails, every operation of the group is void and `group` throws the storage error.
    ///
    /// Example: three `push` calls inside one `group` cost one fsync instead of three; a push in the middle
    /// naming an unknown zone fails alone (in its `groupMember`), the other two are committed.
    public func group<R>(_ body: () throws(EngineError) -> R) throws(EngineError) -> R {
        try state.groupScope(member: false, body)
    }

    /// One operation inside `group`, undone alone when it throws: its savepoint is rolled back and the change
    /// sets of the calls inside are dropped with it (`OpenGroup`). One savepoint per call, not per nested
    /// transaction: an all-or-nothing engine call directly inside (`push`, `pushBatch`) relies on it instead
    /// of opening its own. So `operation` must let an engine error it does not answer itself reach
    /// `groupMember` (catching one and going on would keep what the failed call wrote before it failed).
    public func groupMember<R>(_ operation: () throws(EngineError) -> R) throws(EngineError) -> R {
        try state.groupScope(member: true, operation)
    }
}
