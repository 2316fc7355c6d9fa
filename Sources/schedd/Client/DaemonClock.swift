import ScheddClientCore
import ScheddService
import ScheddBus
import SchedCalendar
import Scheduler

/// The daemon's clock and device zone (`ClockShow`), which human output uses: times print in the
/// daemon's zone — its `--tz`, fake zone, `TZ` (a name, a file path or a POSIX string) or
/// /etc/localtime — with the abbreviation `date` prints there, not in the CLI's own zone.
struct DaemonClock {
    var now: Instant
    /// The zone as the daemon names it (`America/New_York`, `/path/to/localtime`, `EST5EDT,M3.2.0,M11.1.0`).
    var zoneName: String
    /// Its rules, read as the daemon read them; UTC when this process cannot read them.
    var zone: TimeZoneRules
    var fake: Bool

    /// Parses a `{"now","zone","fake"}` reply.
    init(json text: String) throws(CommandFailure) {
        let value = try DaemonSession.json(text, "ClockShow")
        guard let nowText = value[member: "now"]?.stringValue, let now = instant(fromTimeText: nowText, in: .utc) else {
            throw .failure("malformed ClockShow reply: no instant in 'now'")
        }
        self.now = now
        zoneName = value[member: "zone"]?.stringValue ?? "UTC"
        zone = Zones.daemonZone(named: zoneName) ?? .utc
        fake = value[member: "fake"] == .bool(true)
    }

    /// Asks the daemon.
    static func read(_ client: DaemonSession) throws(CommandFailure) -> DaemonClock {
        let text = try client.string("ClockShow", { _ throws(BusError) in })
        return try DaemonClock(json: text)
    }

    /// Sends `ClockShow` now, to travel with the call that follows (one round trip for both); `wait()`
    /// reads it. Nil when it cannot be sent; like `read`, only for human output.
    static func request(_ client: DaemonSession) -> Request? {
        (try? client.sendString("ClockShow")).map { Request(client: client, call: $0) }
    }

    /// A `ClockShow` sent by `request`.
    struct Request {
        let client: DaemonSession
        let call: PendingCall<String>
        /// The daemon's clock, nil when it did not answer one.
        func wait() -> DaemonClock? { (try? client.wait(call)).flatMap { try? DaemonClock(json: $0) } }
    }

    /// `instant` as systemd prints timestamps, in the daemon's zone (`Sat 2026-03-07 19:00:00 EST`).
    func local(_ instant: Instant) -> String { systemdTimestamp(instant, in: zone) }
}
