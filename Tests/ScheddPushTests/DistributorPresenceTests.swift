import XCTest
@testable import ScheddPush

/// Who schedd trusts to speak for a distributor, as names come, go and change owner (issue 31's rule),
/// without a bus: the state `PushConnector` consults for every `Message`, `NewEndpoint` and `Unregistered`.
final class DistributorPresenceTests: XCTestCase {
    let kde = DistributorChoice.prefix + "kde"
    let ntfy = DistributorChoice.prefix + "ntfy"

    func testAListedNameHasNoOwnerUntilTheBusSaysWhoOwnsIt() {
        var presence = DistributorPresence()
        presence.listed(kde)
        XCTAssertTrue(presence.isRunning(kde))
        XCTAssertNil(presence.owner(of: kde), "nothing is accepted while the owner is unknown")
        XCTAssertTrue(presence.learned(owner: ":1.7", of: kde))
        XCTAssertEqual(presence.owner(of: kde), ":1.7")
        XCTAssertFalse(presence.isUnconfirmed(kde, owner: ":1.7"), "the owner seen at start is trusted")
    }

    func testAnOwnerLearnedAfterANewerSignalIsIgnored() {
        var presence = DistributorPresence()
        presence.listed(kde)
        XCTAssertEqual(presence.ownerChanged(name: kde, old: "", new: ":1.9"), .appeared)
        XCTAssertFalse(presence.learned(owner: ":1.7", of: kde), "GetNameOwner's answer is older than the signal")
        XCTAssertEqual(presence.owner(of: kde), ":1.9")
        XCTAssertFalse(presence.learned(owner: ":1.7", of: ntfy), "a name not on the bus learns no owner")
        XCTAssertNil(presence.owner(of: ntfy))
    }

    func testATakeOverIsNotTrustedUntilItConfirmsARegistration() {
        var presence = DistributorPresence()
        presence.listed(kde)
        presence.learned(owner: ":1.7", of: kde)
        XCTAssertEqual(presence.ownerChanged(name: kde, old: ":1.7", new: ":1.20"), .ownerChanged(before: ":1.7"))
        XCTAssertEqual(presence.owner(of: kde), ":1.20")
        XCTAssertTrue(presence.isUnconfirmed(kde, owner: ":1.20"))
        XCTAssertNil(presence.confirmed(kde, by: ":1.7"), "only the new owner's answer confirms")
        XCTAssertTrue(presence.isUnconfirmed(kde, owner: ":1.20"))
        XCTAssertEqual(presence.confirmed(kde, by: ":1.20"), ":1.20")
        XCTAssertFalse(presence.isUnconfirmed(kde, owner: ":1.20"))
        XCTAssertNil(presence.confirmed(kde, by: ":1.20"), "confirmed once")
    }

    func testANameThatLeavesAndComesBackUnderAnotherOwnerIsAlsoATakeOver() {
        var presence = DistributorPresence()
        presence.listed(kde)
        presence.learned(owner: ":1.7", of: kde)
        XCTAssertEqual(presence.ownerChanged(name: kde, old: ":1.7", new: ""), .left)
        XCTAssertFalse(presence.isRunning(kde))
        XCTAssertNil(presence.owner(of: kde))
        XCTAssertEqual(presence.ownerChanged(name: kde, old: "", new: ":1.30"), .ownerChanged(before: ":1.7"))
        XCTAssertTrue(presence.isUnconfirmed(kde, owner: ":1.30"))
        XCTAssertEqual(presence.ownerChanged(name: kde, old: ":1.30", new: ""), .left)
        XCTAssertFalse(presence.isUnconfirmed(kde, owner: ":1.30"), "leaving forgets the pending confirmation")
    }

    func testTheSameOwnerAppearingAgainIsNotAChange() {
        var presence = DistributorPresence()
        XCTAssertEqual(presence.ownerChanged(name: ntfy, old: "", new: ":1.4"), .appeared)
        XCTAssertEqual(presence.ownerChanged(name: ntfy, old: "", new: ":1.4"), .appeared)
        XCTAssertFalse(presence.isUnconfirmed(ntfy, owner: ":1.4"))
    }

    func testTheChoiceFollowsTheNamesOnTheBus() {
        var presence = DistributorPresence()
        XCTAssertNil(try? presence.choice(for: nil, override: nil).get())
        presence.listed(kde)
        XCTAssertEqual(try? presence.choice(for: nil, override: nil).get(), kde)
        presence.activatable = [ntfy]
        XCTAssertNil(try? presence.choice(for: nil, override: nil).get(), "two distributors and no choice: none")
        XCTAssertEqual(try? presence.choice(for: ntfy, override: nil).get(), ntfy)
        XCTAssertEqual(try? presence.choice(for: nil, override: "kde").get(), kde)
    }
}
