import ScheddBus
import XCTest
@testable import ScheddPush

/// The distributor rule (docs/receiving-pushes.md) as a table, and the connector's argument rules.
final class DistributorChoiceTests: XCTestCase {
    let p = DistributorChoice.prefix

    func testRule_table() {
        let cases: [(running: [String], activatable: [String], override: String?, current: String?, expected: String?)] = [
            ([], [], nil, nil, nil),
            ([p + "kde"], [], nil, nil, p + "kde"),
            // Issue 31: several and no choice → none (main 067d7ec took the first in byte order).
            ([p + "ntfy", p + "kde"], [], nil, nil, nil),
            ([p + "aaaa"], [p + "kde"], nil, nil, nil),                          // activatable ones count too
            ([p + "kde"], [p + "kde"], nil, nil, p + "kde"),                     // one distributor, both lists
            ([p + "ntfy", p + "kde"], [], nil, p + "ntfy", p + "ntfy"),         // keeps the current one
            ([p + "ntfy"], [], nil, p + "gone", p + "ntfy"),                     // current gone: the single one
            ([p + "ntfy", p + "kde"], [], nil, p + "gone", nil),                 // current gone, several: none
            ([], [p + "b"], nil, p + "b", p + "b"),                              // current, activatable
            ([], [p + "b"], nil, nil, p + "b"),                                  // the single one, activatable
            ([p + "kde", p + "ntfy"], [], "ntfy", p + "kde", p + "ntfy"),        // the override wins, as a suffix
            ([p + "kde"], [p + "ntfy"], p + "ntfy", nil, p + "ntfy"),            // full name, activatable
            ([p + "kde"], [], "ntfy", nil, nil),                                 // a missing override is an error
            (["org.unifiedpush.Distributor", "org.example.Other", p], [], nil, nil, nil),  // not distributor names
        ]
        for c in cases {
            let result = DistributorChoice.choose(running: c.running, activatable: c.activatable, override: c.override,
                                                  current: c.current)
            switch (result, c.expected) {
            case (.success(let name), let expected?): XCTAssertEqual(name, expected, "\(c)")
            case (.failure(let error), nil): XCTAssertEqual(error.kind, .noDistributor, "\(c)")
            default: XCTFail("\(c): got \(result)")
            }
        }
    }

    func testSeveralWithoutAChoice_saysToChooseOne() {
        guard case .failure(let error) = DistributorChoice.choose(running: [p + "kde", p + "ntfy"], activatable: [],
                                                                  override: nil, current: nil) else { return XCTFail() }
        XCTAssertTrue(error.message.contains("several UnifiedPush distributors") && error.message.contains("--push-distributor"),
                      error.message)
    }

    func testMissingOverride_namesItAndWhatIsThere() {
        guard case .failure(let error) = DistributorChoice.choose(running: [p + "kde"], activatable: [], override: "ntfy",
                                                                  current: nil) else { return XCTFail() }
        XCTAssertTrue(error.message.contains(p + "ntfy") && error.message.contains(p + "kde"), error.message)
    }

    func testMessageArguments_rules() throws {
        let good = try ConnectorArguments.message(["token": .string("t"), "message": .bytes([1]), "id": .string("m"),
                                                   "extra": .other("u")])
        XCTAssertEqual(good, ConnectorArguments.Message(token: "t", body: [1], id: "m"))
        XCTAssertEqual(try ConnectorArguments.message(["token": .string("t"), "message": .string("ab")]).body, [97, 98])
        // Size is the decryption's rule (rejected, recorded, acknowledged), not an argument error.
        XCTAssertEqual(try ConnectorArguments.message(["token": .string("t"), "message": .bytes([])]).body, [])
        XCTAssertEqual(try ConnectorArguments.message(["token": .string("t"), "message": .bytes([UInt8](repeating: 0, count: 4097))]).body.count, 4097)
        let bad: [([String: BusVariant], String)] = [
            (["message": .bytes([1])], "'token' argument is missing"),
            (["token": .bytes([1]), "message": .bytes([1])], "'token' must be a string"),
            (["token": .string(""), "message": .bytes([1])], "'token' must be 1–100 bytes, got 0"),
            (["token": .string(String(repeating: "t", count: 101)), "message": .bytes([1])], "got 101"),
            (["token": .string("t")], "'message' argument is missing"),
            (["token": .string("t"), "message": .other("u")], "must be a byte array (ay), got 'u'"),
            (["token": .string("t"), "message": .bytes([1]), "id": .other("i")], "'id' must be a string"),
        ]
        for (arguments, expected) in bad {
            XCTAssertThrowsError(try ConnectorArguments.message(arguments)) { error in
                XCTAssertTrue((error as? PushConnectorError)?.message.contains(expected) == true, "\(error) lacks \(expected)")
            }
        }
        XCTAssertThrowsError(try ConnectorArguments.endpoint(["endpoint": .string(String(repeating: "e", count: 1001))]))
        XCTAssertEqual(try ConnectorArguments.endpoint(["endpoint": .string("https://x")]), "https://x")
    }

    func testConnectionToken_isAUUIDv4_andFresh() throws {
        let a = try ConnectionToken.generate(), b = try ConnectionToken.generate()
        XCTAssertNotEqual(a, b)
        XCTAssertEqual(a.count, 36)
        let chars = Array(a)
        XCTAssertEqual(chars[14], "4")
        XCTAssertTrue("89ab".contains(chars[19]), a)
        XCTAssertEqual([8, 13, 18, 23].map { chars[$0] }, ["-", "-", "-", "-"])
    }
}
