/// org.schedd.UnifiedPush1, served beside org.schedd.Scheduler1 on schedd's bus name and object path
/// (docs/receiving-pushes.md): what apps call to receive pushes (Register, Unregister, List). Its
/// interface name and error names, the one copy, like `SchedulerNames`: the connector (ScheddPush's
/// `PushConnectorError.Kind` is `UnifiedPushErrorName`) replies with these; clients match them.
public enum UnifiedPushNames {
    public static let interface = "org.schedd.UnifiedPush1"
}

/// The D-Bus error names of org.schedd.UnifiedPush1.
public enum UnifiedPushErrorName: String, Sendable, CaseIterable {
    /// No distributor to register with (none on the bus, or the override's is missing).
    case noDistributor = "org.schedd.UnifiedPush1.Error.NoDistributor"
    /// The distributor answered REGISTRATION_FAILED, or its Register call failed.
    case registrationFailed = "org.schedd.UnifiedPush1.Error.RegistrationFailed"
    /// An argument breaks a rule of the spec (token length, message size, types).
    case invalidArgument = "org.schedd.UnifiedPush1.Error.InvalidArgument"
    /// The app has no registration.
    case notRegistered = "org.schedd.UnifiedPush1.Error.NotRegistered"
    /// The database failed; nothing was changed.
    case storage = "org.schedd.UnifiedPush1.Error.Storage"
    /// The app is at its quota of pending schedules; nothing was changed.
    case quotaExceeded = "org.schedd.UnifiedPush1.Error.QuotaExceeded"
    /// The caller may not make this call: a connector call from a peer that is not the
    /// registration's distributor (the standard D-Bus name, `SchedulerNames.accessDenied`).
    case accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
}
