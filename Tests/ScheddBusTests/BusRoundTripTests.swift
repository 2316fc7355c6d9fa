import Foundation
import ScheddBus
import TestPrerequisites
import XCTest

/// ScheddBus's sd-bus shim against a real, private dbus-daemon (`PrivateTestBus`: Tests/Support/bus/test-bus.conf,
/// `--nofork` under Tests/Support/tether.sh, so it ends with the test process): a signal's arguments
/// arrive as they were appended, a peer's unique name is its sender, and the bus driver's errors come
/// back typed (`BusError.name`, `isNoOwner`).
final class BusRoundTripTests: XCTestCase {
    private var bus: PrivateTestBus?
    private var address = ""

    override func setUpWithError() throws {
        let bus = try PrivateTestBus()
        self.bus = bus
        address = bus.address
        XCTAssertTrue(address.hasPrefix("unix:"), "dbus-daemon printed no address: \(address)")
    }

    override func tearDown() {
        bus?.stop()
    }

    private static func name(_ name: String) -> (BusMessage) throws(BusError) -> Void {
        { (message: BusMessage) throws(BusError) in try message.append(name) }
    }
    private static func readName(_ message: BusMessage) throws(BusError) -> String { try message.readString() }

    private final class Received { var values: (String, UInt32, [UInt8], [String], String?)? }

    private let driver = BusMethod(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                   interface: "org.freedesktop.DBus", member: "GetNameOwner")

    func testASignalsArguments_arriveAsAppended_fromItsSender() throws {
        let sender = try BusConnection.open(.address(address)), listener = try BusConnection.open(.address(address))
        defer { sender.close(); listener.close() }
        let received = Received()
        try listener.addMatch("type='signal',interface='org.schedd.Test1',member='Ping'") { message in
            received.values = try? (message.readString(), message.readUInt32(), message.readBytes(), message.readStrings(),
                                    message.sender)
        }
        // A call after the AddMatch returns once the bus has handled both: the match is in place.
        _ = try listener.call(driver, Self.name("org.freedesktop.DBus"), read: Self.readName)
        try sender.emitSignal(path: "/org/schedd/Test", interface: "org.schedd.Test1", member: "Ping") { (message: BusMessage) throws(BusError) in
            try message.append("héllo")
            try message.append(UInt32(7))
            try message.append(bytes: [0, 1, 255])
            try message.append(["x", "", "z"])
        }
        sender.flush()
        for _ in 0..<300 where received.values == nil { listener.process(waitingUpTo: 100_000) }
        let values = try XCTUnwrap(received.values, "the signal did not arrive")
        XCTAssertEqual(values.0, "héllo")
        XCTAssertEqual(values.1, 7)
        XCTAssertEqual(values.2, [0, 1, 255])
        XCTAssertEqual(values.3, ["x", "", "z"])
        XCTAssertEqual(values.4, sender.uniqueName)
    }

    func testAnOwnedName_resolvesToItsOwner_andAnUnownedOne_isATypedError() throws {
        let owner = try BusConnection.open(.address(address)), asker = try BusConnection.open(.address(address))
        defer { owner.close(); asker.close() }
        try owner.requestName("org.schedd.TestName")
        let resolved = try asker.call(driver, Self.name("org.schedd.TestName"), read: Self.readName)
        XCTAssertEqual(resolved, owner.uniqueName)
        XCTAssertThrowsError(try asker.call(driver, Self.name("org.schedd.Nobody"), read: Self.readName)) { error in
            let error = error as? BusError
            XCTAssertEqual(error?.name, "org.freedesktop.DBus.Error.NameHasNoOwner")
            XCTAssertEqual(error?.operation, "GetNameOwner")
        }
    }
}
