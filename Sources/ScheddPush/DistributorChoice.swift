/// Which distributor an app's registration goes to (docs/receiving-pushes.md, "Choosing a
/// distributor"): the one the user chose, or the single one present — as the UnifiedPush D-Bus spec
/// asks of a connector (with several distributors, the user picks one; nobody else does). Pure: the
/// caller lists the names on the bus.
///
/// The rule, first match wins:
/// 1. The user's choice (`schedd run --push-distributor NAME`, else the `UNIFIEDPUSH_DISTRIBUTOR`
///    environment variable; a full bus name or the part after `org.unifiedpush.Distributor.`): that
///    one, running or activatable, or nothing (a choice is never silently ignored).
/// 2. The distributor the registration already uses (chosen before by rule 1 or 3), while it is
///    running or activatable.
/// 3. The single distributor present (running or activatable).
/// 4. Several and no choice: none — the registration waits, and says to choose one. (Before issue 31
///    the first name in byte order won, so a distributor named to sort first took every app.)
///
/// Example: running `…Distributor.ntfy` and `…Distributor.kde`, no choice, a new registration → none
/// ("several UnifiedPush distributors … choose one"); `--push-distributor kde` →
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
        if let current, running.contains(current) || activatable.contains(current) { return .success(current) }
        let present = Array(Set(running + activatable)).sorted()
        if present.count == 1 { return .success(present[0]) }
        if present.count > 1 {
            return .failure(PushConnectorError(.noDistributor, "several UnifiedPush distributors on the bus (\(listed(present))): "
                + "choose one with schedd run --push-distributor NAME or UNIFIEDPUSH_DISTRIBUTOR"))
        }
        return .failure(PushConnectorError(.noDistributor, "no UnifiedPush distributor on the bus "
            + "(no name starts with \(prefix)): install and start one, e.g. KDE's kunifiedpush-distributor"))
    }

    private static func listed(_ names: [String]) -> String { names.isEmpty ? "none" : names.joined(separator: ", ") }
}
