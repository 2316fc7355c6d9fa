import ScheddSystem

/// Warnings that a peer of the bus causes — a `Message` with an unknown token or from a peer that is not
/// the distributor, a body that does not decrypt, an unknown `NewEndpoint` — throttled per peer
/// (issue 31 item 6; CONTRACT §9 "the log says the first error and then how many followed"): a hostile
/// peer calling in a loop must not flood the journal, nor drown another peer's warnings. Per peer
/// (its unique bus name), one line per `intervalMicroseconds`; the next line that passes says how many
/// were held back ("(41 more from this peer not logged)"). At most `maxPeers` peers are tracked; beyond
/// that all are forgotten at once (the next warning of each is logged again). O(1) per warning.
struct PeerWarnings {
    static let intervalMicroseconds: Int64 = 10_000_000
    static let maxPeers = 1024
    private var limits: [String: RateLimit] = [:]

    /// The line to log for `text` caused by `peer` at `now` (monotonic µs), or nil when it is only counted.
    mutating func line(peer: String, _ text: String, now: Int64) -> String? {
        if limits[peer] == nil {
            if limits.count >= Self.maxPeers { limits.removeAll() }
            limits[peer] = RateLimit(intervalMicroseconds: Self.intervalMicroseconds, burst: 1)
        }
        guard let suppressed = limits[peer]?.admit(now: now) else { return nil }
        return suppressed == 0 ? text : text + " (\(suppressed) more from this peer not logged)"
    }
}

extension PushConnector {
    /// Logs a warning `peer` caused, throttled per peer (`PeerWarnings`).
    func warn(peer: String?, _ text: String) {
        if let line = peerWarnings.line(peer: peer ?? "?", text, now: SystemTime.monotonicMicroseconds) {
            host.log(.warning, line)
        }
    }
}
