import ScheddService
import XCTest

/// ScheddService's reader of D-Bus wire arguments (WireArguments.swift), which gives `SchedulerCall` and
/// the dispatch fuzzer what sd-bus would: what `marshal` writes reads back value for value; untrusted
/// bytes are refused with a message saying what is wrong, never a trap; a cap names the member and the
/// cap, and says nothing was applied.
final class WireArgumentsTests: XCTestCase {
    func testMarshalledValues_readBackInOrder() throws {
        var args = WireArguments(WireArguments.marshal([.string("héllo"), .uint64(1 << 40 + 7), .strings(["a", "", "ccc"]),
                                                        .uint32(0xDEAD_BEEF)]))
        XCTAssertEqual(try args.readString("title", maxBytes: 100), "héllo")
        XCTAssertEqual(try args.readUInt64(), 1 << 40 + 7)
        XCTAssertEqual(try args.readStrings("ids", maxCount: 10, maxBytes: 100), ["a", "", "ccc"])
        XCTAssertEqual(try args.readUInt32(), 0xDEAD_BEEF)
        XCTAssertTrue(args.isAtEnd)
    }

    func testTheWireLayout_isTheDBusOne() {
        // "s": u32 length, bytes, NUL; then "t" 8-aligned, little-endian.
        XCTAssertEqual(WireArguments.marshal([.string("ab"), .uint64(1)]),
                       [2, 0, 0, 0, 97, 98, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0])
    }

    func testAStringOverItsCap_namesTheMemberAndTheCap() {
        var args = WireArguments(WireArguments.marshal([.string("123456")]))
        XCTAssertThrowsError(try args.readString("title", maxBytes: 5)) { error in
            let error = error as? CallArgumentError
            XCTAssertEqual(error?.message, "title: longer than the cap of 5 bytes; nothing was applied")
            XCTAssertEqual(error?.overCap, true)
        }
    }

    func testAnArrayOverItsCaps_saysWhichCap_andToSplitTheBatch() {
        var byCount = WireArguments(WireArguments.marshal([.strings(["a", "b", "c"])]))
        XCTAssertThrowsError(try byCount.readStrings("pushes", maxCount: 2, maxBytes: 100)) { error in
            XCTAssertEqual((error as? CallArgumentError)?.message,
                           "pushes: more than the cap of 2 entries (caps: 2 entries, 100 bytes per call); nothing was applied; split the batch")
        }
        var byBytes = WireArguments(WireArguments.marshal([.strings(["aaaa", "bbbb"])]))
        XCTAssertThrowsError(try byBytes.readStrings("pushes", maxCount: 10, maxBytes: 6)) { error in
            XCTAssertEqual((error as? CallArgumentError)?.message,
                           "pushes: more than the cap of 6 bytes in all (caps: 10 entries, 6 bytes per call); nothing was applied; split the batch")
            XCTAssertEqual((error as? CallArgumentError)?.kind, .overCap)
        }
    }

    func testMalformedBytes_areRefusedWithWhatIsWrong() {
        func refusal(_ bytes: [UInt8], _ read: (inout WireArguments) throws -> Void) -> String? {
            var args = WireArguments(bytes)
            do { try read(&args); return nil } catch { return (error as? CallArgumentError)?.message }
        }
        let readString: (inout WireArguments) throws -> Void = { _ = try $0.readString("s", maxBytes: 100) }
        XCTAssertEqual(refusal([2, 0, 0], readString), "truncated: 4 bytes expected")
        XCTAssertEqual(refusal([2, 0, 0, 0, 97, 98, 1], readString), "string not terminated by NUL")
        XCTAssertEqual(refusal([2, 0, 0, 0, 97, 0, 0], readString), "string is not valid UTF-8 without NUL")
        XCTAssertEqual(refusal([2, 0, 0, 0, 0xC3, 0x28, 0], readString), "string is not valid UTF-8 without NUL")
        XCTAssertEqual(refusal([9, 0, 0, 0, 97, 0], readString), "truncated: 9 bytes expected")
        // A u64 after a u32 is 8-aligned: the 4 bytes between must be zero.
        XCTAssertEqual(refusal([0, 1, 0, 0, 0, 0, 1, 0, 5, 0, 0, 0, 0, 0, 0, 0]) { _ = try $0.readUInt32(); _ = try $0.readUInt64() },
                       "non-zero padding")
        XCTAssertEqual(refusal([0xFF, 0xFF, 0xFF, 0x7F]) { _ = try $0.readStrings("a", maxCount: 10, maxBytes: 10) },
                       "array longer than 64 MiB")
        XCTAssertEqual(refusal([16, 0, 0, 0, 1, 0, 0, 0]) { _ = try $0.readStrings("a", maxCount: 10, maxBytes: 100) },
                       "truncated array")
        // An element whose declared length runs past the array's end.
        XCTAssertEqual(refusal([6, 0, 0, 0, 3, 0, 0, 0, 97, 98, 99, 0]) { _ = try $0.readStrings("a", maxCount: 10, maxBytes: 100) },
                       "array elements overrun its length")
    }
}
