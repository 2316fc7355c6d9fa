import Foundation
import Glibc
import XCTest

/// Tests/Support/unifiedpush/test_distributor.py on a harness's private bus: a UnifiedPush
/// distributor (Distributor2) that also plays the application server (it encrypts per RFC 8291).
final class TestDistributor {
    let logPath: String
    let address: String
    let name: String
    private let process: ChildProcess

    static var script: String { Build.supportFile("unifiedpush/test_distributor.py") }

    init(address: String, directory: TemporaryDirectory, name: String = "test", extra: [String] = []) throws {
        self.address = address
        self.name = name
        logPath = directory.file("distributor-\(name)-\(UInt32.random(in: 0...UInt32.max)).jsonl")
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process = try ChildProcess(DesktopHarness.python,
                                   [Self.script, "--address", address, "--log", logPath, "--name", name] + extra,
                                   quiet: false)
        // Generous: importing dbus, gi and cryptography takes seconds on a loaded 2-core machine.
        guard waitUntil(30, { !self.events("ready").isEmpty }) else {
            process.terminate()
            throw TestSetupError("the test distributor did not start (python3-dbus or python3-cryptography missing?)")
        }
    }

    /// Every line of its log, parsed, oldest first.
    func records() -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { parseObject(String($0)) }
    }

    func events(_ event: String) -> [[String: Any]] { records().filter { $0["event"] as? String == event } }

    /// The tokens schedd registered with, in order of Register calls.
    func registeredTokens() -> [String] {
        events("Register").compactMap { ($0["args"] as? [String: Any])?["token"] as? String }
    }

    /// The schedd signals it saw (`EndpointChanged`, `Unregistered`), as [member, args…].
    func signals(_ member: String) -> [[String]] {
        events("signal").filter { $0["member"] as? String == member }.compactMap { $0["args"] as? [String] }
    }

    /// Encrypts `plaintext` for `registration` (its p256dh and auth, as an app server has them) and
    /// delivers it to its endpoint; returns {"reply", "error", "elapsed_ns", "bytes"}.
    func send(_ plaintext: String, to registration: [String: Any], id: String) throws -> [String: Any] {
        try control("Send", "sssss", [registration["endpoint"] as? String ?? "", plaintext,
                                      registration["p256dh"] as? String ?? "", registration["auth"] as? String ?? "", id])
    }

    /// Delivers `body` unencrypted and unchanged (for bodies that must be refused).
    func sendRaw(_ body: [UInt8], to registration: [String: Any], id: String) throws -> [String: Any] {
        try control("SendRaw", "says", [registration["endpoint"] as? String ?? "", "\(body.count)"]
                    + body.map { String($0) } + [id])
    }

    /// Delivers the last body it delivered for `registration` again, byte for byte (a replay by the push
    /// server or the distributor); answers as `send`.
    func replay(to registration: [String: Any], id: String) throws -> [String: Any] {
        try control("Replay", "ss", [registration["endpoint"] as? String ?? "", id])
    }

    /// The distributor drops the registration itself (Unregistered to schedd).
    func drop(_ registration: [String: Any]) throws {
        _ = try controlRaw("Drop", "s", [registration["endpoint"] as? String ?? ""])
    }

    private func control(_ member: String, _ signature: String, _ args: [String]) throws -> [String: Any] {
        let text = try controlRaw(member, signature, args)
        guard let answer = parseObject(text) else { throw TestSetupError("\(member) answered \(text)") }
        return answer
    }

    /// Calls the control interface with busctl; returns its single string answer ("" for none).
    private func controlRaw(_ member: String, _ signature: String, _ args: [String]) throws -> String {
        // `--`: a base64url argument may start with "-", which busctl would take for an option.
        let result = try runProcess("/usr/bin/busctl", ["--address=\(address)", "--json=short", "--", "call",
                                                        "org.unifiedpush.Distributor.\(name)", "/org/schedd/test/Distributor",
                                                        "org.schedd.test.DistributorControl", member, signature] + args)
        guard result.status == 0 else { throw TestSetupError("busctl \(member): \(result.stderr)") }
        return busctlString(result.stdout) ?? ""
    }

    func stop() { process.terminate() }
}

/// The first string of a `busctl --json=short` answer.
func busctlString(_ output: String) -> String? {
    guard let object = parseObject(output.trimmingCharacters(in: .whitespacesAndNewlines)),
          let data = object["data"] as? [Any] else { return nil }
    return data.first as? String
}


extension ScheddHarness {
    /// Calls org.schedd.UnifiedPush1 `member` with busctl; returns (status, the string answer or the error).
    func unifiedPush(_ member: String, _ signature: String = "", _ args: [String] = []) throws -> (status: Int32, text: String) {
        let result = try runProcess("/usr/bin/busctl", ["--address=\(bus.address)", "--json=short", "--", "call",
                                                        "org.schedd.Scheduler1", "/org/schedd/Scheduler1",
                                                        "org.schedd.UnifiedPush1", member] + (signature.isEmpty ? [] : [signature]) + args)
        return (result.status, result.status == 0 ? busctlString(result.stdout) ?? "" : result.stderr)
    }

    /// Registers `app` for pushes; asserts success and returns the registration.
    func registerForPushes(_ app: String, description: String = "reminders",
                           file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let (status, text) = try unifiedPush("Register", "ss", [app, description])
        XCTAssertEqual(status, 0, "Register \(app): \(text)", file: file, line: line)
        return try XCTUnwrap(parseObject(text), "Register answered \(text)", file: file, line: line)
    }

    /// Every registration, by app.
    func pushRegistrations() throws -> [String: [String: Any]] {
        let (status, text) = try unifiedPush("List")
        XCTAssertEqual(status, 0, text)
        let list = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: list.map { ($0["app"] as? String ?? "", $0) })
    }
}
