@testable import schedd
import ScheddApps
import ScheddService
@testable import Scheduler
import XCTest

/// Every error kind to its D-Bus name, explicitly (issue 17 item 3): the engine's, the argument
/// decoder's and the caller identity's, with no catch-all to Storage; and causes stay attached.
final class ErrorNamesTests: XCTestCase {
    func testEveryEngineErrorKind_hasItsOwnName() {
        let expected: [EngineError.Kind: String] = [
            .storage: "org.schedd.Scheduler1.Error.Storage",
            .invalidArgument: "org.schedd.Scheduler1.Error.InvalidArgument",
            .notFound: "org.schedd.Scheduler1.Error.NotFound",
            .quotaExceeded: "org.schedd.Scheduler1.Error.QuotaExceeded",
        ]
        XCTAssertEqual(Set(expected.keys), Set(EngineError.Kind.allCases), "a new kind needs a name here")
        for kind in EngineError.Kind.allCases {
            XCTAssertEqual(ServiceFailure(EngineError(kind, "m")).name.rawValue, expected[kind], "\(kind)")
        }
    }

    func testEveryArgumentErrorKind_hasItsOwnName() {
        XCTAssertEqual(ServiceFailure(CallArgumentError("x")).name, .usage)
        XCTAssertEqual(ServiceFailure(CallArgumentError.overCap("Cancel: id", bytes: 65_536)).name, .invalidArgument)
        XCTAssertEqual(ServiceFailure(CallArgumentError("push: larger", kind: .invalidPush)).name, .invalidPush)
        XCTAssertEqual(ServiceFailure(ArgumentRejection("r")).name, .invalidArgument)
        XCTAssertEqual(ServiceFailure(accessDenied: "no").name.rawValue, "org.freedesktop.DBus.Error.AccessDenied")
    }

    func testEveryCallerIdentityErrorKind_hasItsOwnName() {
        XCTAssertEqual(ServiceFailure(CallerIdentityError(.invalidAppID, "x")).name, .invalidArgument)
        XCTAssertEqual(ServiceFailure(CallerIdentityError(.sandboxed, "x")).name, .accessDenied)
        XCTAssertEqual(ServiceFailure(CallerIdentityError(.unattributable, "x")).name, .accessDenied)
    }

    func testEveryName_isDistinct() {
        XCTAssertEqual(Set(ServiceErrorName.allCases.map(\.rawValue)).count, ServiceErrorName.allCases.count)
    }

    /// A storage failure keeps its SQLite result code as a value from the store through the engine to
    /// the service's failure; an engine error carried through a transaction comes out whole.
    func testCauses_areChained_notFlattened() throws {
        let store = StoreError(.io, SQLiteError(code: 13, message: "database or disk is full", context: "COMMIT"))
        XCTAssertEqual(store.sqliteCode, .full)
        let failure = ServiceFailure(EngineError(.storage, store.message, cause: store))
        XCTAssertEqual(failure.name, .storage)
        XCTAssertEqual(failure.storeCause?.sqliteCode, .full)
        let inner = EngineError(.quotaExceeded, "over", cause: store)
        let carried = StoreError(carrying: inner)
        XCTAssertEqual(carried.carried?.kind, .quotaExceeded)
        XCTAssertEqual(carried.carried?.cause?.sqliteCode, .full, "the carried error keeps its own cause")
    }
}
