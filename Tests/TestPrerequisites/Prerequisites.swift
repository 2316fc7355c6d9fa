import Foundation
import XCTest

/// Whether a missing prerequisite of a test — a reference tool (systemd-analyze, zdump, Python's
/// zoneinfo), zone files, dbus-daemon, python3-dbus, Xvfb/dunst, root for a tmpfs or a second user —
/// fails the test instead of skipping it: `SCHEDD_REQUIRE_REFERENCES=1`, which `.ci/run` sets, so CI can
/// never turn a missing tool into a green test. On a developer's machine without it, such a test skips
/// and says what is missing.
public var referencesRequired: Bool { ProcessInfo.processInfo.environment["SCHEDD_REQUIRE_REFERENCES"] == "1" }

/// A prerequisite the test needs is missing (scripts/install-deps.sh installs every one; CI runs as root).
public struct MissingReference: Error, CustomStringConvertible {
    public var description: String
}

/// The error to throw when `what` is missing: a skip on a developer's machine, a failure when
/// `referencesRequired`.
public func missingReference(_ what: String) -> any Error {
    referencesRequired
        ? MissingReference(description: "\(what) (SCHEDD_REQUIRE_REFERENCES=1: this test needs it)")
        : XCTSkip(what)
}

/// Throws `missingReference(what)` unless `condition` holds (the failing form of `XCTSkipUnless`).
public func requirePrerequisite(_ condition: Bool, _ what: @autoclosure () -> String) throws {
    if !condition { throw missingReference(what()) }
}
