/// Why a zone could not be loaded or a TZ string not parsed.
///
/// The message names the zone or file and the problem, e.g.
/// `unknown time zone 'Mars/Olympus': no file /usr/share/zoneinfo/Mars/Olympus` or
/// `invalid TZif header: bad magic (expected "TZif")`.
public struct ZoneError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }

    /// This error with `prefix: ` in front (outer layers add context).
    public func prefixed(_ prefix: String) -> ZoneError { ZoneError(prefix + ": " + message) }
}
