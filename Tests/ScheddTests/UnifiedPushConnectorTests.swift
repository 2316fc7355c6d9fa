import Foundation
import Glibc
import XCTest

/// schedd as a UnifiedPush connector against the test distributor (Tests/Support/unifiedpush) on a
/// private bus: the real daemon, the real dbus-daemon, messages encrypted per RFC 8291 by the
/// distributor with the keys schedd gave the app.
final class UnifiedPushConnectorTests: XCTestCase {
    var harness: ScheddHarness!
    var distributor: TestDistributor!

    static let start = "2026-03-01T10:00:00Z"

    override func setUpWithError() throws {
        harness = try ScheddHarness(fakeClock: Self.start)
        distributor = try TestDistributor(address: harness.bus.address, directory: harness.directory)
    }

    override func tearDown() {
        distributor?.stop()
        harness?.tearDown()
    }

    func reply(_ answer: [String: Any]) -> [String: Any]? { answer["reply"] as? [String: Any] }

    // MARK: Registration

    func testRegister_givesTheEndpointAndWebPushKeys() throws {
        let registration = try harness.registerForPushes("org.example.Reminders")
        XCTAssertEqual(registration["state"] as? String, "registered")
        XCTAssertEqual(registration["distributor"] as? String, "org.unifiedpush.Distributor.test")
        let endpoint = try XCTUnwrap(registration["endpoint"] as? String)
        XCTAssertEqual(distributor.events("NewEndpoint").last?["endpoint"] as? String, endpoint)
        XCTAssertEqual(base64URLDecodedCount(registration["p256dh"]), 65, "an uncompressed P-256 point")
        XCTAssertEqual(base64URLDecodedCount(registration["auth"]), 16)
        XCTAssertNil(registration["token"], "the token stays between schedd and the distributor")
        let register = try XCTUnwrap(distributor.events("Register").last?["args"] as? [String: Any])
        XCTAssertEqual(register["service"] as? String, "org.schedd.Scheduler1")
        XCTAssertEqual(register["description"] as? String, "reminders")
        // The signal reaches the distributor's connection on its own way: Register's answer can come first
        // (failed once in a full run, 2026-12-06). Wait for it, as the other signal tests do.
        XCTAssertTrue(waitUntil(30) { self.distributor.signals("EndpointChanged").count >= 1 })
        XCTAssertEqual(distributor.signals("EndpointChanged").first?.first, "org.example.Reminders")
    }

    // MARK: Delivery

    func testDeliveredPush_isScheduled_repliedWithItsID_andFiresOnTheFakeClock() throws {
        let registration = try harness.registerForPushes("org.example.Reminders")
        let push = localPush(id: "run_1:a", at: "2026-03-01T10:05:00Z", title: "From the network")
        let answer = try distributor.send(push, to: registration, id: "m1")
        XCTAssertNil(answer["error"] as? String)
        XCTAssertEqual(reply(answer)?["id"] as? String, "m1")
        XCTAssertEqual(try harness.list(app: "org.example.Reminders").map { $0["id"] as? String }, ["run_1:a"], "durable before the reply")
        try harness.advance("10min")
        XCTAssertEqual(harness.shown.map { $0["title"] as? String }, ["From the network"])
        XCTAssertTrue(harness.daemonStderr.contains("push for org.example.Reminders (message m1) applied"), harness.daemonStderr)
    }

    func testRetriedMessage_isDuplicate_andShownOnce() throws {
        let registration = try harness.registerForPushes("org.example.Reminders")
        let push = localPush(id: "run_1:a", at: "2026-03-01T10:05:00Z", title: "Once")
        for _ in 0..<3 { XCTAssertEqual(reply(try distributor.send(push, to: registration, id: "m1"))?["id"] as? String, "m1") }
        XCTAssertEqual(try harness.list(app: "org.example.Reminders").count, 1)
        XCTAssertEqual(harness.daemonStderr.components(separatedBy: "\"status\":\"duplicate\"").count - 1, 2,
                       harness.daemonStderr)
        try harness.advance("10min")
        XCTAssertEqual(harness.shown.count, 1)
    }

    func testCancelByPush_cancelsWhatAnEarlierPushScheduled() throws {
        let registration = try harness.registerForPushes("org.example.Reminders")
        _ = try distributor.send(localPush(id: "run_1:a", at: "2026-03-01T10:05:00Z"), to: registration, id: "m1")
        _ = try distributor.send(localPush(id: "run_1:b", at: "2026-03-01T10:06:00Z"), to: registration, id: "m2")
        let answer = try distributor.send(#"{"bk":{"cancel":{"run":"run_1"}}}"#, to: registration, id: "m3")
        XCTAssertEqual(reply(answer)?["id"] as? String, "m3")
        XCTAssertEqual(try harness.list(app: "org.example.Reminders").count, 0)
        try harness.advance("10min")
        XCTAssertEqual(harness.shown.count, 0)
        XCTAssertEqual(try harness.history(app: "org.example.Reminders").filter { $0["event"] as? String == "cancelled" }.count, 2)
    }

    // MARK: Several apps

    func testSecondApp_hasItsOwnTokenAndKeys_andOneAppsKeysDoNotOpenTheOthersPushes() throws {
        let first = try harness.registerForPushes("org.example.First")
        let second = try harness.registerForPushes("org.example.Second")
        let tokens = distributor.registeredTokens()
        XCTAssertEqual(Set(tokens).count, 2, "one token per app: \(tokens)")
        XCTAssertNotEqual(first["endpoint"] as? String, second["endpoint"] as? String)
        XCTAssertNotEqual(first["p256dh"] as? String, second["p256dh"] as? String)
        XCTAssertNotEqual(first["auth"] as? String, second["auth"] as? String)
        // Encrypted with the first app's keys, delivered to the second app's endpoint.
        var crossed = first
        crossed["endpoint"] = second["endpoint"]
        let answer = try distributor.send(localPush(id: "x", at: "2026-03-01T10:05:00Z"), to: crossed, id: "m1")
        XCTAssertEqual(reply(answer)?["id"] as? String, "m1", "a message that can never decrypt is acknowledged")
        XCTAssertEqual(try harness.list(app: "org.example.Second").count, 0)
        let registrations = try harness.pushRegistrations()
        XCTAssertEqual(registrations["org.example.Second"]?["rejected"] as? Int, 1)
        XCTAssertEqual(registrations["org.example.First"]?["rejected"] as? Int, 0)
        XCTAssertEqual(try harness.list(app: "org.example.First").count, 0)
        _ = try distributor.send(localPush(id: "y", at: "2026-03-01T10:05:00Z"), to: second, id: "m2")
        XCTAssertEqual(try harness.list(app: "org.example.Second").map { $0["id"] as? String }, ["y"])
    }

    func testTwoApps_pushingTheSameID_keepTheirOwnSchedules() throws {
        let first = try harness.registerForPushes("org.example.First")
        let second = try harness.registerForPushes("org.example.Second")
        _ = try distributor.send(localPush(id: "run_1:a", at: "2026-03-01T10:05:00Z", title: "First's"), to: first, id: "m1")
        _ = try distributor.send(localPush(id: "run_1:a", at: "2026-03-01T10:06:00Z", title: "Second's"), to: second, id: "m2")
        XCTAssertEqual(try harness.list(app: "org.example.First").map { $0["title"] as? String }, ["First's"])
        XCTAssertEqual(try harness.list(app: "org.example.Second").map { $0["title"] as? String }, ["Second's"])
        XCTAssertEqual(try harness.list().count, 0, "nothing in the default app")
        _ = try distributor.send(#"{"bk":{"cancel":{"run":"run_1"}}}"#, to: second, id: "m3")
        XCTAssertEqual(try harness.list(app: "org.example.First").count, 1, "the second app's cancel is its own")
        XCTAssertEqual(try harness.list(app: "org.example.Second").count, 0)
    }

    // MARK: Restart

    func testRestart_registersAgainWithTheSameToken_andKeepsTheKeys() throws {
        let before = try harness.registerForPushes("org.example.Reminders")
        let token = try XCTUnwrap(distributor.registeredTokens().first)
        harness.stopDaemon()
        try harness.startDaemon(fakeClock: Self.start)
        XCTAssertTrue(waitUntil(30) { self.distributor.registeredTokens().count == 2 }, "no Register after the restart")
        XCTAssertEqual(distributor.registeredTokens(), [token, token])
        let after = try XCTUnwrap(harness.pushRegistrations()["org.example.Reminders"])
        XCTAssertEqual(after["endpoint"] as? String, before["endpoint"] as? String)
        XCTAssertEqual(after["p256dh"] as? String, before["p256dh"] as? String)
        XCTAssertEqual(after["auth"] as? String, before["auth"] as? String)
        let answer = try distributor.send(localPush(id: "after", at: "2026-03-01T10:05:00Z"), to: before, id: "m1")
        XCTAssertEqual(reply(answer)?["id"] as? String, "m1")
        XCTAssertEqual(try harness.list(app: "org.example.Reminders").map { $0["id"] as? String }, ["after"])
    }

    // MARK: Bad bodies

    func testBodyThatDoesNotDecrypt_isRejected_logged_recorded_andNothingApplied() throws {
        let registration = try harness.registerForPushes("org.example.Reminders")
        let answer = try distributor.sendRaw(Array("not an aes128gcm body at all".utf8), to: registration, id: "bad1")
        XCTAssertEqual(reply(answer)?["id"] as? String, "bad1")
        XCTAssertEqual(try harness.list(app: "org.example.Reminders").count, 0)
        XCTAssertTrue(harness.daemonStderr.contains("rejected a push for org.example.Reminders (message bad1) does not decrypt"),
                      harness.daemonStderr)
        let recorded = try XCTUnwrap(harness.pushRegistrations()["org.example.Reminders"])
        XCTAssertEqual(recorded["rejected"] as? Int, 1)
        let last = try XCTUnwrap(recorded["lastRejection"] as? [String: Any])
        XCTAssertEqual(last["id"] as? String, "bad1")
        XCTAssertTrue((last["reason"] as? String)?.contains("aes128gcm") == true, "\(last)")
    }

    /// docs/receiving-pushes.md: a body over 4096 bytes does not decrypt — rejected, logged, recorded with
    /// the registration and acknowledged. The 4,097-byte body is a correct RFC 8291 encryption of a valid
    /// push (3,994 bytes of plaintext + 86 of header + delimiter + 16 of tag); the same push one byte
    /// shorter (a 4,096-byte body) is applied.
    func testBodyOf4097Bytes_isRejected_logged_recorded_andAcknowledged_4096IsApplied() throws {
        let registration = try harness.registerForPushes("org.example.Reminders")
        func push(id: String, plaintextBytes: Int) -> String {
            let padding = plaintextBytes - localPush(id: id, at: "2026-03-01T10:05:00Z", extra: #""body":"""#).utf8.count
            let text = localPush(id: id, at: "2026-03-01T10:05:00Z", extra: #""body":""# + String(repeating: "x", count: padding) + #"""#)
            XCTAssertEqual(text.utf8.count, plaintextBytes)
            return text
        }
        let tooLarge = try distributor.send(push(id: "big", plaintextBytes: 3994), to: registration, id: "big1")
        XCTAssertEqual(tooLarge["bytes"] as? Int, 4097, "the distributor sent 4,097 bytes: \(tooLarge)")
        XCTAssertNil(tooLarge["error"] as? String, "acknowledged, not an error: \(tooLarge)")
        XCTAssertEqual(reply(tooLarge)?["id"] as? String, "big1", "acknowledged")
        XCTAssertEqual(try harness.list(app: "org.example.Reminders").count, 0, "nothing applied")
        XCTAssertTrue(harness.daemonStderr.contains("rejected a push for org.example.Reminders (message big1) does not decrypt: "
                                                    + "web push: message of 4097 bytes is over the 4096-byte limit"), harness.daemonStderr)
        let recorded = try XCTUnwrap(harness.pushRegistrations()["org.example.Reminders"])
        XCTAssertEqual(recorded["rejected"] as? Int, 1)
        let last = try XCTUnwrap(recorded["lastRejection"] as? [String: Any])
        XCTAssertEqual(last["id"] as? String, "big1")
        XCTAssertTrue((last["reason"] as? String)?.contains("4097 bytes is over the 4096-byte limit") == true, "\(last)")

        let fits = try distributor.send(push(id: "fits", plaintextBytes: 3993), to: registration, id: "fit1")
        XCTAssertEqual(fits["bytes"] as? Int, 4096, "\(fits)")
        XCTAssertEqual(reply(fits)?["id"] as? String, "fit1")
        XCTAssertEqual(try harness.list(app: "org.example.Reminders").map { $0["id"] as? String }, ["fits"])
        XCTAssertEqual(try harness.pushRegistrations()["org.example.Reminders"]?["rejected"] as? Int, 1)
    }

    /// A flood of bodies that do not decrypt — anyone who holds an app's endpoint URL can have the push
    /// server deliver them through the user's distributor. Each is acknowledged and counted exactly (List),
    /// but the daemon writes the counts at most once a second per app (RejectionRecorder), not once per
    /// message: before, each rejection was a write and a sync on the loop. The write system calls the
    /// daemon made (`/proc/PID/io` syscw: each recorded rejection writes at least one WAL frame, two pwrites)
    /// stay far below one per message; what was held is written at the daemon's stop.
    func testAFloodOfBodiesThatDoNotDecrypt_isCountedExactly_withoutAWritePerMessage() throws {
        let registration = try harness.registerForPushes("org.example.Reminders")
        let pid = try XCTUnwrap(harness.daemon?.processIdentifier)
        func writeCalls() throws -> Int {
            let io = try String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8)
            let line = try XCTUnwrap(io.split(separator: "\n").first { $0.hasPrefix("syscw:") })
            return try XCTUnwrap(Int(line.dropFirst("syscw:".count).trimmingCharacters(in: .whitespaces)))
        }
        let messages = 200
        let before = try writeCalls()
        for n in 0..<messages {
            let answer = try distributor.sendRaw(Array("garbage \(n)".utf8), to: registration, id: "g\(n)")
            XCTAssertEqual(reply(answer)?["id"] as? String, "g\(n)", "acknowledged: the same bytes can never succeed")
        }
        let writes = try writeCalls() - before
        let recorded = try XCTUnwrap(harness.pushRegistrations()["org.example.Reminders"])
        XCTAssertEqual(recorded["rejected"] as? Int, messages, "every rejection counted, held ones included")
        XCTAssertEqual((recorded["lastRejection"] as? [String: Any])?["id"] as? String, "g\(messages - 1)")
        XCTAssertLessThan(writes, messages / 2, "the daemon made \(writes) write calls for \(messages) rejections")
        XCTAssertEqual(try harness.list(app: "org.example.Reminders").count, 0)

        harness.stopDaemon()
        try harness.startDaemon(fakeClock: Self.start)
        let after = try XCTUnwrap(harness.pushRegistrations()["org.example.Reminders"])
        XCTAssertEqual(after["rejected"] as? Int, messages, "what was held was written at the stop")
        XCTAssertEqual((after["lastRejection"] as? [String: Any])?["id"] as? String, "g\(messages - 1)")
    }

    func testDecryptedBodyThatIsNotAValidPush_isRejected_andNothingHalfApplied() throws {
        let registration = try harness.registerForPushes("org.example.Reminders")
        // A cancel and a local without a title: the whole push is refused, the cancel included.
        _ = try distributor.send(localPush(id: "keep", at: "2026-03-01T10:05:00Z"), to: registration, id: "m1")
        let bad = #"{"bk":{"cancel":{"id":"keep"},"local":{"id":"new","at":"2026-03-01T10:06:00Z"}}}"#
        XCTAssertEqual(reply(try distributor.send(bad, to: registration, id: "m2"))?["id"] as? String, "m2")
        XCTAssertEqual(try harness.list(app: "org.example.Reminders").map { $0["id"] as? String }, ["keep"])
        XCTAssertTrue(harness.daemonStderr.contains("(message m2) is not a valid push"), harness.daemonStderr)
        _ = try distributor.send("not json", to: registration, id: "m3")
        XCTAssertEqual(try harness.pushRegistrations()["org.example.Reminders"]?["rejected"] as? Int, 2)
    }

    // MARK: Unregistering

    func testDistributorUnregistersTheApp_schedSignalsIt_andRegistersAgain() throws {
        let registration = try harness.registerForPushes("org.example.Reminders")
        try distributor.drop(registration)
        XCTAssertTrue(waitUntil(30) { self.distributor.registeredTokens().count == 2 }, "no second Register")
        XCTAssertEqual(Set(distributor.registeredTokens()).count, 1, "the same token")
        XCTAssertTrue(waitUntil(30) { self.distributor.signals("Unregistered").count == 1 })
        XCTAssertEqual(distributor.signals("Unregistered").first?.first, "org.example.Reminders")
        XCTAssertTrue(waitUntil(30) { self.distributor.signals("EndpointChanged").count == 2 })
        let now = try XCTUnwrap(harness.pushRegistrations()["org.example.Reminders"])
        XCTAssertNotEqual(now["endpoint"] as? String, registration["endpoint"] as? String, "a new endpoint")
        XCTAssertEqual(now["state"] as? String, "registered")
        _ = try distributor.send(localPush(id: "again", at: "2026-03-01T10:05:00Z"), to: now, id: "m1")
        XCTAssertEqual(try harness.list(app: "org.example.Reminders").map { $0["id"] as? String }, ["again"])
    }

    func testAppUnregisters_distributorIsTold_andLaterMessagesAreIgnored() throws {
        let registration = try harness.registerForPushes("org.example.Reminders")
        let (status, text) = try harness.unifiedPush("Unregister", "s", ["org.example.Reminders"])
        XCTAssertEqual(status, 0, text)
        XCTAssertTrue(waitUntil(30) { !self.distributor.events("Unregister").isEmpty })
        XCTAssertEqual(try harness.pushRegistrations().count, 0)
        let (again, error) = try harness.unifiedPush("Unregister", "s", ["org.example.Reminders"])
        XCTAssertNotEqual(again, 0)
        XCTAssertTrue(error.contains("has no push registration"), error)
        XCTAssertEqual(distributor.signals("Unregistered").count, 0, "the app asked: no signal")
        _ = registration
    }

    // MARK: Bad calls

    /// Another peer on the bus that learned the token still cannot redirect the app's pushes: only the
    /// owner of the registration's distributor name may send NewEndpoint (here after a restart, so
    /// schedd learned the owner by asking the bus, not from NameOwnerChanged).
    func testNewEndpointFromAnotherPeer_isRefused() throws {
        let registration = try harness.registerForPushes("org.example.Reminders")
        let token = try XCTUnwrap(distributor.registeredTokens().first)
        harness.stopDaemon()
        try harness.startDaemon(fakeClock: Self.start)
        XCTAssertTrue(waitUntil(30) { self.distributor.registeredTokens().count == 2 })
        let spoof = try runProcess("/usr/bin/busctl", ["--address=\(harness.bus.address)", "--", "call", "org.schedd.Scheduler1",
                                                       "/org/unifiedpush/Connector", "org.unifiedpush.Connector2", "NewEndpoint",
                                                       "a{sv}", "2", "token", "s", token, "endpoint", "s", "https://evil.invalid/x"])
        XCTAssertNotEqual(spoof.status, 0)
        XCTAssertTrue(spoof.stderr.contains("Access denied"), spoof.stderr)  // busctl shows AccessDenied so; the log says why
        XCTAssertTrue(harness.daemonStderr.contains("not from its distributor org.unifiedpush.Distributor.test"), harness.daemonStderr)
        XCTAssertEqual(try harness.pushRegistrations()["org.example.Reminders"]?["endpoint"] as? String,
                       registration["endpoint"] as? String)
    }

    func testRegister_withAnInvalidAppID_isRefused_namingTheRule() throws {
        let (status, text) = try harness.unifiedPush("Register", "ss", ["not an app id", ""])
        XCTAssertNotEqual(status, 0)
        XCTAssertTrue(text.contains("app:"), text)
        XCTAssertEqual(try harness.pushRegistrations().count, 0)
    }

    /// Issue 31 item 6: connector warnings are throttled per peer. One hostile peer sends 200 Messages
    /// with an unknown token; another peer sends one. The log has one line for each peer (main 067d7ec
    /// logged 201), and a later line of the flooding peer says how many were held back.
    func testWarningsCausedByAPeer_areThrottledPerPeer() throws {
        let script = """
            import sys, dbus
            bus = dbus.bus.BusConnection(sys.argv[1])
            o = bus.get_object("org.schedd.Scheduler1", "/org/unifiedpush/Connector")
            for i in range(int(sys.argv[2])):
                o.Message({"token": "no-such-token-%d" % i, "message": dbus.ByteArray(b"x"), "id": "m%d" % i},
                          dbus_interface="org.unifiedpush.Connector2")
            print(bus.get_unique_name())
            """
        let flood = try runProcess(DesktopHarness.python, ["-c", script, harness.bus.address, "200"])
        XCTAssertEqual(flood.status, 0, flood.stderr)
        let other = try runProcess(DesktopHarness.python, ["-c", script, harness.bus.address, "1"])
        XCTAssertEqual(other.status, 0, other.stderr)
        let (flooder, bystander) = (flood.stdout.trimmingCharacters(in: .whitespacesAndNewlines),
                                    other.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        let lines = harness.daemonStderr.split(separator: "\n").filter { $0.contains("ignored a push with an unknown token") }
        XCTAssertEqual(lines.filter { $0.hasSuffix("from \(flooder)") }.count, 1, "one line for the flooding peer: \(lines.count) lines")
        XCTAssertEqual(lines.filter { $0.hasSuffix("from \(bystander)") }.count, 1, "the other peer's warning is not drowned")
        XCTAssertLessThanOrEqual(lines.count, 2, "\(lines.prefix(5))")
    }

    func testMessageWithBadArguments_isRefused_namingTheArgument() throws {
        let result = try runProcess("/usr/bin/busctl", ["--address=\(harness.bus.address)", "call", "org.schedd.Scheduler1",
                                                        "/org/unifiedpush/Connector", "org.unifiedpush.Connector2", "Message",
                                                        "a{sv}", "1", "id", "s", "x"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("'token' argument is missing"), result.stderr)
    }
}

/// Bytes of a base64url string value, or -1.
func base64URLDecodedCount(_ value: Any?) -> Int {
    guard var text = value as? String else { return -1 }
    text = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while text.count % 4 != 0 { text += "=" }
    return Data(base64Encoded: text)?.count ?? -1
}
