/// Which distributor an app's registration goes to (docs/receiving-pushes.md, "Choosing a
/// distributor"). Pure: the caller lists the names on the bus.
///
/// The rule, first match wins:
/// 1. The override (`schedd run --push-distributor NAME`, else the `UNIFIEDPUSH_DISTRIBUTOR`
///    environment variable; a full bus name or the part after `org.unifiedpush.Distributor.`): that
///    one, running or activatable, or nothing (an override is never silently ignored).
/// 2. The distributor the registration already uses, while it is running.
/// 3. The first running distributor in byte order of the names.
/// 4. The first activatable one (a `.service` file the bus can start) in the same order.
///
/// Example: running `…Distributor.ntfy` and `…Distributor.kde`, no override, a new registration →
/// `org.unifiedpush.Distributor.kde`. Cost: O(n log n) in the names listed.
public enum DistributorChoice {
    /// The prefix every distributor's bus name starts with (UnifiedPush D-Bus spec).
    public static let prefix = "org.unifiedpush.Distributor."

    /// True for a bus name a distributor would own (the prefix and a non-empty rest).
    public static func isDistributorName(_ name: String) -> Bool {
        name.hasPrefix(prefix) && name.utf8.count > prefix.utf8.count
    }

    /// The full bus name for an override given as a full name or as its suffix (`kde`).
    public static func busName(forOverride text: String) -> String {
        text.hasPrefix(prefix) ? text : prefix + text
    }

    /// The chosen distributor, or why there is none.
    public static func choose(running: [String], activatable: [String], override: String?,
                              current: String?) -> Result<String, PushConnectorError> {
        let running = running.filter(isDistributorName).sorted()
        let activatable = activatable.filter(isDistributorName).sorted()
        if let override, !override.isEmpty {
            let name = busName(forOverride: override)
            if running.contains(name) || activatable.contains(name) { return .success(name) }
            return .failure(PushConnectorError(.noDistributor, "the distributor \(name) chosen by the override is not on the bus "
                + "(running: \(listed(running)); activatable: \(listed(activatable)))"))
        }
        if let current, running.contains(current) { return .success(current) }
        if let first = running.first ?? activatable.first { return .success(first) }
        return .failure(PushConnectorError(.noDistributor, "no UnifiedPush distributor on the bus "
            + "(no name starts with \(prefix)): install and start one, e.g. KDE's kunifiedpush-distributor"))
    }

    private static func listed(_ names: [String]) -> String { names.isEmpty ? "none" : names.joined(separator: ", ") }
}
