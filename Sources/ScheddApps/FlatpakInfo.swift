/// What schedd reads from a Flatpak sandbox's `/.flatpak-info` (a key file Flatpak writes and
/// bind-mounts read-only at the root of every sandbox; seen from outside as `/proc/PID/root/.flatpak-info`).
///
/// ```
/// [Application]
/// name=org.example.Reminders
/// runtime=runtime/org.gnome.Platform/x86_64/46
///
/// [Instance]
/// instance-id=1234567890
/// ```
///
/// Only `[Application] name` decides the identity. A file without it, or with an invalid id, is a
/// sandbox schedd cannot attribute: the call is refused (`FlatpakInfoError`) rather than treated as
/// unsandboxed, so a broken sandbox never gains the host's right to name any app.
/// (`[Runtime] runtime` alone, a runtime run as a sandbox by `flatpak run --runtime`, is refused too.)
public struct FlatpakInfo: Sendable, Hashable {
    public var appID: AppID
    /// `[Instance] instance-id`, for the log; nil when absent.
    public var instanceID: String?

    /// Parses the file's bytes. O(size).
    public init(bytes: some Collection<UInt8>) throws(FlatpakInfoError) {
        guard bytes.count <= KeyFile.maxBytes else { throw FlatpakInfoError("larger than \(KeyFile.maxBytes) bytes") }
        let file = KeyFile(bytes: bytes)
        guard let name = file.string("name", in: "Application")?.trimmingSpaces(), !name.isEmpty else {
            throw FlatpakInfoError("has no [Application] name")
        }
        do {
            appID = try AppID(validating: name)
        } catch {
            throw FlatpakInfoError("[Application] name: \(error)")
        }
        instanceID = file.string("instance-id", in: "Instance")
    }
}

/// A `.flatpak-info` that does not name a valid app.
public struct FlatpakInfoError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    /// `.flatpak-info has no [Application] name`.
    public var description: String { ".flatpak-info " + message }
}
