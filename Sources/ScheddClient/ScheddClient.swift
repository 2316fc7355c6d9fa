import Foundation
import ScheddBus
import ScheddClientCore

/// A client of schedd's D-Bus API (org.schedd.Scheduler1) for apps: typed pushes, async calls,
/// typed errors mirroring the D-Bus errors, and the daemon's signals as an `AsyncSequence`.
///
/// ```swift
/// let schedd = try await ScheddClient.connect()            // the session bus
/// let outcome = try await schedd.push(.local(LocalNotification(
///     id: "run_42:step2", title: "Dinner", trigger: .at("2026-12-24T19:00"))))
/// try await schedd.subscribe()
/// for await signal in schedd.signals() { if case .shown(let n) = signal { print(n.title) } }
/// ```
///
/// Every call returns once the daemon answered, and an answer means the change is durable (schedd
/// commits before it replies). Calls may be made from any task, concurrently: they are sent in the
/// order made, on one connection owned by a thread of the client's own (`ClientLoop`), and each
/// waits for its own reply without holding up the others. Cost: one bus round trip per call, plus
/// one per 1,000 rows for `pending()` and `history()`.
public final class ScheddClient: Sendable {
    /// Which bus the daemon is on.
    public enum Bus: Sendable, Equatable {
        /// `$DBUS_SESSION_BUS_ADDRESS` (else `$XDG_RUNTIME_DIR/bus`).
        case session
        /// The system bus (a kiosk's system daemon).
        case system
        /// A D-Bus address, e.g. a testbed's `unix:path=/tmp/schedd-testbed-…/bus`.
        case address(String)

        var target: BusTarget {
            switch self {
            case .session: return .session
            case .system: return .system
            case .address(let address): return .address(address)
            }
        }
    }

    /// A call that moves the clock delivers everything due before it answers: allow it an hour, as
    /// the CLI does. Other calls have sd-bus's 25 s.
    static let clockTimeoutMicroseconds: UInt64 = 3_600_000_000

    private let loop: ClientLoop

    private init(loop: ClientLoop) { self.loop = loop }

    /// Connects to `bus`. Signals sent after this returns are seen by `signals()` streams. `app`
    /// declares the app id the calls act for (`DeclareApp`; a sandboxed caller always acts as its
    /// sandbox's app, and may declare only that).
    public static func connect(to bus: Bus = .session, app: String? = nil) async throws(ScheddError) -> ScheddClient {
        let client = ScheddClient(loop: try await ClientLoop.start(bus.target))
        if let app { try await client.declareApp(app) }
        return client
    }

    /// Makes the calls that follow on this connection act for `app` (`""`: the caller's own id);
    /// returns the daemon's `{"app","source","sandboxed"}` answer as JSON text.
    @discardableResult
    public func declareApp(_ app: String) async throws(ScheddError) -> String {
        try await call("DeclareApp", { m throws(BusError) in try m.append(app) }, read: { m throws(BusError) in try m.readString() })
    }

    /// Asks schedd to send this connection the signals of its app (as `DeclareApp` and the caller's
    /// sandbox make it now), or of every app with `allApps` (unsandboxed callers only; a sandboxed one
    /// gets `.accessDenied`). schedd sends signals only to subscribed connections, addressed to them
    /// (unicast): without this call `signals()` stays silent. Lasts until the connection closes.
    /// Returns the daemon's `{"app","source","sandboxed","allApps"}` answer as JSON text.
    @discardableResult
    public func subscribe(allApps: Bool = false) async throws(ScheddError) -> String {
        try await call(allApps ? "SubscribeAllApps" : "Subscribe", { _ throws(BusError) in },
                       read: { m throws(BusError) in try m.readString() })
    }

    deinit { loop.close() }

    /// Closes the connection; calls made afterwards fail with `.unreachable`, signal streams finish.
    public func close() { loop.close() }

    /// The daemon's signals from now on, as typed values (`for await signal in client.signals()`); schedd
    /// sends them only once this connection called `subscribe(allApps:)`.
    public func signals() -> AsyncStream<ScheddSignal> { loop.subscribe() }

    /// Calls `member` with arguments appended by `build`; `read` decodes the reply on the loop thread.
    func call<T: Sendable>(_ member: String, timeoutMicroseconds: UInt64 = 0,
                           _ build: @escaping @Sendable (BusMessage) throws(BusError) -> Void,
                           read: @escaping @Sendable (BusMessage) throws(BusError) -> T) async throws(ScheddError) -> T {
        let result: Result<T, ScheddError> = await withCheckedContinuation { continuation in
            let accepted = loop.submit { connection in
                do throws(BusError) {
                    try connection.callAsync(SchedulerNames.method(member), timeoutMicroseconds: timeoutMicroseconds,
                                             build) { reply in
                        switch reply {
                        case .success(let message):
                            do throws(BusError) {
                                continuation.resume(returning: .success(try read(message)))
                            } catch {
                                continuation.resume(returning: .failure(
                                    ScheddError(.protocolError, "unexpected reply to \(member): \(error.description)")))
                            }
                        case .failure(let error):
                            continuation.resume(returning: .failure(ScheddError(error)))
                        }
                    }
                } catch {
                    continuation.resume(returning: .failure(ScheddError(error)))
                }
            }
            if !accepted { continuation.resume(returning: .failure(ScheddError(.unreachable, "the client is closed"))) }
        }
        return try result.get()
    }

    /// Calls a method whose reply is one JSON string, and decodes it as `T`.
    func callJSON<T: Decodable & Sendable>(_ member: String, as type: T.Type, timeoutMicroseconds: UInt64 = 0,
                                           _ build: @escaping @Sendable (BusMessage) throws(BusError) -> Void = { _ throws(BusError) in })
    async throws(ScheddError) -> T {
        let text = try await call(member, timeoutMicroseconds: timeoutMicroseconds, build,
                                  read: { m throws(BusError) in try m.readString() })
        return try decode(T.self, text, member)
    }
}

/// Decodes a JSON reply, naming the method when it does not have the documented shape.
func decode<T: Decodable>(_ type: T.Type, _ text: String, _ member: String) throws(ScheddError) -> T {
    do {
        return try JSONDecoder().decode(T.self, from: Data(text.utf8))
    } catch {
        throw ScheddError(.protocolError, "malformed \(member) reply: \(error)")
    }
}
