import Foundation
import Glibc
import ScheddSystem
import XCTest

/// ScheddSystem's wake timer (CONTRACT §11 "Wake"), for real on this machine.
final class WakeAlarmTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "schedd-rtc-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    /// The probe for real: this machine (a container without /sys/class/rtc) cannot wake itself, and says
    /// why; a directory with an RTC that has no wakealarm says that.
    func testProbe_onThisMachine_andAgainstAnRTCDirectory() throws {
        let reason = WakeAlarmSupport.probe()
        let hasRTCAlarm = (try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/rtc"))?
            .contains { FileManager.default.fileExists(atPath: "/sys/class/rtc/\($0)/wakealarm") } ?? false
        if hasRTCAlarm && getuid() == 0 {
            XCTAssertNil(reason, "root with an RTC alarm can arm a wake timer")
        } else {
            let reason = try XCTUnwrap(reason, "no RTC alarm here: must say why")
            XCTAssertTrue(reason.contains("CAP_WAKE_ALARM") || reason.contains("RTC"), reason)
        }
        guard (try? WakeAlarmTimer()) != nil else {
            XCTAssertTrue(reason?.contains("CAP_WAKE_ALARM") == true || reason?.contains("alarm timers") == true, "\(reason ?? "nil")")
            return
        }
        // The timerfd can be made (CAP_WAKE_ALARM): the RTC decides.
        try FileManager.default.createDirectory(atPath: directory + "/rtc/rtc0", withIntermediateDirectories: true)
        XCTAssertEqual(WakeAlarmSupport.probe(rtcDirectory: directory + "/rtc"),
                       "no RTC alarm device (rtc0 in \(directory)/rtc without wakealarm)")
        XCTAssertTrue(FileManager.default.createFile(atPath: directory + "/rtc/rtc0/wakealarm", contents: nil))
        XCTAssertNil(WakeAlarmSupport.probe(rtcDirectory: directory + "/rtc"))
        XCTAssertEqual(WakeAlarmSupport.probe(rtcDirectory: directory + "/none"),
                       "no RTC alarm device (\(directory)/none: No such file or directory)")
    }

    /// Armed and read back for real where the kernel lets this process make one (root here).
    func testTimer_armsAndDisarms_whereAllowed() throws {
        guard let timer = try? WakeAlarmTimer() else { return XCTAssertNotNil(WakeAlarmSupport.probe()) }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        try timer.arm(atRealtimeMicroseconds: Int64(now.tv_sec + 3600) * 1_000_000)
        XCTAssertGreaterThan(try timer.remainingMicroseconds(), 3_500_000_000, "armed about an hour ahead")
        // Re-armed earlier, as when an earlier wake schedule arrives. (After a disarm, timerfd_gettime of an
        // alarm clock still reports the old expiry — the kernel reads alarm->node.expires without checking
        // the timer is active — so a disarm cannot be read back; it is only checked not to fail.)
        try timer.disarm()
        try timer.arm(atRealtimeMicroseconds: Int64(now.tv_sec + 60) * 1_000_000)
        let remaining = try timer.remainingMicroseconds()
        XCTAssertTrue((1...60_000_000).contains(remaining), "\(remaining)")
    }
}
