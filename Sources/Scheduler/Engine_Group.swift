// Group commit: several calls, one transaction (CONTRACT §5 durability unchanged).
extension Engine {
    /// Runs several engine operations (pushes, cancels, tracks) in ONE store transaction: one commit, one
    /// fsync for all of them. The daemon applies every method call waiting when its loop wakes this way
    /// and answers each only after `group` returned, so every answer still follows durability.
    ///
    /// Each operation inside keeps its own all-or-nothing (a savepoint): one that throws is undone alone
    /// and `body` may catch that and go on with the others. If the commit itself fails, every operation of
    /// the group is void (the wheel is rebuilt from the store) and `group` throws the storage error.
    ///
    /// Example: three `push` calls inside one `group` cost one fsync instead of three; a push in the middle
    /// naming an unknown zone fails alone, the other two are committed.
    public func group<R>(_ body: () throws(EngineError) -> R) throws(EngineError) -> R {
        try storage { () throws(StoreError) in
            try store.transaction { () throws(StoreError) in try wrap(body) }
        }
    }
}
