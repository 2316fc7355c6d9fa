import SystemZones
import SchedCalendar
import XCTest
@testable import Scheduler

/// An instant from a UTC wall time.
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Instant {
    CivilDateTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        .instant(offsetSeconds: 0)
}

func wall(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> CivilDateTime {
    CivilDateTime(year: year, month: month, day: day, hour: hour, minute: minute)
}

/// A `bk.local` built directly (no decoder). The fingerprint is a canonical string of every field,
/// so two values with equal content are "the same push".
func makeLocal(_ id: String, _ trigger: Trigger, title: String = "T", body: String? = nil, until: OneShotTime? = nil,
               dataJSON: String? = nil, cancelOn: [String] = [], grace: Int64? = nil) -> LocalSchedule {
    let fingerprint = "\(id)|\(trigger)|\(String(describing: until))|\(title)|\(String(describing: body))|"
        + "\(String(describing: dataJSON))|\(cancelOn)|\(String(describing: grace))"
    return LocalSchedule(id: id, trigger: trigger, until: until, title: title, body: body, dataJSON: dataJSON,
                         cancelOn: cancelOn, graceSeconds: grace, fingerprint: fingerprint)
}

func atFixed(_ instant: Instant) -> Trigger { .at(.fixed(instant, offsetSeconds: 0)) }
func atWall(_ w: CivilDateTime, zone: String? = nil) -> Trigger { .at(.floating(w, zone: zone)) }

func pushLocal(_ local: LocalSchedule, messageId: String? = nil) -> Push { Push(local: local, messageId: messageId) }

/// A notifier that records, and can fail or "crash" (stop showing anything) after N notifications.
final class ScriptedNotifier: Notifier {
    var shown: [DueNotification] = []
    var closed: [String] = []
    var failure: String?
    /// After this many shows, the process is considered dead: nothing more reaches the screen.
    var crashAfter: Int?
    /// Called before each show (e.g. to inspect the database at that moment).
    var onShow: ((DueNotification) -> Void)?
    private var calls = 0

    func show(_ notification: DueNotification) -> DeliveryResult {
        onShow?(notification)
        calls += 1
        if let crashAfter, calls > crashAfter { return .shown }
        if let failure { return .failed(reason: failure) }
        shown.append(notification)
        return .shown
    }

    @discardableResult
    func close(app: String, id: String) -> Bool {
        // By bytes, as the desktop notifier's on-screen map keys ids (OnScreenMap.Key).
        func same(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }
        let onScreen = shown.contains { same($0.app, app) && same($0.id, id) } && !closed.contains { same($0, id) }
        closed.append(id)
        return onScreen
    }
}

/// An engine on a database file in a temporary directory, reopened at will (a daemon restart).
final class EngineHarness {
    let directory = makeTemporaryDirectory()
    var path: String { directory + "/schedd.db" }
    let notifier = ScriptedNotifier()
    var zone: TimeZoneRules
    var engine: Engine?

    /// The zone resolver the engine uses (the process-wide database unless a test gives its own).
    let zones: any ZoneResolver

    /// `maxBytesPerApp` and `foldThreshold` are this first engine's; `restart` and `crashAndReopen` open
    /// theirs with the defaults.
    init(zone: TimeZoneRules = .utc, zones: any ZoneResolver = ZoneDatabase.shared,
         maxBytesPerApp: Int = Engine.defaultMaxBytesPerApp, foldThreshold: Int = Engine.defaultFoldThreshold,
         now: Instant) throws {
        self.zone = zone
        self.zones = zones
        engine = try Engine(databasePath: path, notifier: notifier, deviceZone: zone, zones: zones,
                            maxBytesPerApp: maxBytesPerApp, foldThreshold: foldThreshold, now: now)
    }

    deinit {
        engine?.close()
        removeTree(directory)
    }

    var e: Engine { engine! }

    /// Closes the engine and opens a new one on the same file, as a restarted daemon would.
    func restart(now: Instant, zone: TimeZoneRules? = nil) throws {
        engine?.close()
        engine = nil
        if let zone { self.zone = zone }
        engine = try Engine(databasePath: path, notifier: notifier, deviceZone: self.zone, zones: zones, now: now)
    }

    /// Drops the engine without closing it cleanly (what a `kill -9` leaves: only committed data).
    func crashAndReopen(now: Instant) throws {
        engine = nil
        engine = try Engine(databasePath: path, notifier: notifier, deviceZone: zone, zones: zones, now: now)
    }

    func history(_ limit: Int = 1000) throws -> [HistoryRecord] { try e.history(limit: limit) }

    func events(of id: String) throws -> [HistoryRecord.Event] { try history().filter { $0.id == id }.map(\.event) }

    @discardableResult
    func push(_ local: LocalSchedule, now: Instant, messageId: String? = nil) throws -> PushOutcome {
        try e.push(pushLocal(local, messageId: messageId), now: now).last!
    }
}

/// Loads a zone from the system database; fails the test with a clear message when it cannot.
func loadZone(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> TimeZoneRules {
    do { return try ZoneDatabase.shared.zone(named: name) } catch {
        XCTFail("zone \(name) unavailable (ZoneDatabase not yet merged?): \(error)", file: file, line: line)
        throw error
    }
}
