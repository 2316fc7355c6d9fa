// The Linux seam against the real kernel: each call's success and the Errno of its failure, caused for real.
import Foundation
import ScheddSystem
import XCTest

final class ScheddSystemTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = try FileSystem.makeTemporaryDirectory(NSTemporaryDirectory() + "/schedd-system-XXXXXX")
    }

    override func tearDown() {
        for name in (try? FileSystem.directoryEntries(directory)) ?? [] { try? FileSystem.remove(directory + "/" + name) }
        try? FileSystem.removeDirectory(directory)
    }

    func testOpenOfAMissingFile_throwsNoSuchFileOrDirectory_withItsText() {
        XCTAssertThrowsError(try FileDescriptor.open(directory + "/missing", .readOnly)) { error in
            XCTAssertEqual(error as? Errno, .noSuchFileOrDirectory)
            XCTAssertEqual("\(error)", "No such file or directory")
        }
    }

    func testOpenAtWithNoFollow_refusesASymbolicLink() throws {
        try Data("x".utf8).write(to: URL(fileURLWithPath: directory + "/target"))
        try FileManager.default.createSymbolicLink(atPath: directory + "/link", withDestinationPath: directory + "/target")
        let root = try FileDescriptor.open(directory, .readOnly, options: [.directory])
        defer { root.close() }
        XCTAssertThrowsError(try root.openAt("link", .readOnly, options: [.noFollow])) { error in
            XCTAssertEqual(error as? Errno, .tooManySymbolicLinkLevels)
        }
        let file = try root.openAt("target", .readOnly, options: [.noFollow])
        defer { file.close() }
        XCTAssertTrue(try file.status().isRegularFile)
        XCTAssertEqual(try file.readAll(limit: 10), Array("x".utf8))
        XCTAssertEqual(try FileSystem.linkTarget(directory + "/link"), directory + "/target")
    }

    func testReadAll_returnsNilBeyondTheLimit() throws {
        try Data(repeating: 7, count: 40_000).write(to: URL(fileURLWithPath: directory + "/big"))
        let fd = try FileDescriptor.open(directory + "/big", .readOnly)
        defer { fd.close() }
        XCTAssertNil(try fd.readAll(limit: 39_999))
    }

    func testPipe_carriesBytes_andPollSeesThemReadable() throws {
        let (reader, writer) = try FileDescriptor.pipe(nonBlocking: true)
        defer { reader.close(); writer.close() }
        XCTAssertFalse(try reader.waitReadable(milliseconds: 0))
        XCTAssertThrowsError(try reader.read(upTo: 4)) { XCTAssertEqual($0 as? Errno, .resourceTemporarilyUnavailable) }
        try writer.writeAll(Array("ping".utf8))
        XCTAssertTrue(try reader.waitReadable(milliseconds: 1000))
        XCTAssertEqual(try reader.read(upTo: 16), Array("ping".utf8))
    }

    func testDuplicateCloseOnExec_keepsTheFileOpenAfterTheOriginalCloses_andRefusesAClosedDescriptor() throws {
        let (reader, writer) = try FileDescriptor.pipe()
        let copy = try reader.duplicateCloseOnExec()
        defer { copy.close(); writer.close() }
        XCTAssertGreaterThanOrEqual(copy.rawValue, 3)
        XCTAssertNotEqual(copy, reader)
        XCTAssertEqual(fcntl(copy.rawValue, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC)
        reader.close()
        try writer.writeAll(Array("kept".utf8))
        XCTAssertEqual(try copy.read(upTo: 16), Array("kept".utf8))
        XCTAssertThrowsError(try reader.duplicateCloseOnExec()) { XCTAssertEqual($0 as? Errno, .badFileDescriptor) }
    }

    func testSpawn_runsTheProgram_reapsItsExitStatus_andReportsAMissingProgram() throws {
        var request = SpawnRequest(arguments: ["sh", "-c", "exit 7"], environment: CurrentProcess.environment)
        request.grouping = .newSession
        let pid = try ChildProcesses.spawn(request)
        XCTAssertEqual(WaitStatus(try ChildProcesses.waitForExit(pid)).exitCode, 7)
        XCTAssertThrowsError(try ChildProcesses.reapIfExited(pid)) { XCTAssertEqual($0 as? Errno, .noChildProcess) }
        XCTAssertThrowsError(try ChildProcesses.spawn(SpawnRequest(arguments: ["/nonexistent/schedd-x"], environment: []))) {
            XCTAssertEqual($0 as? Errno, .noSuchFileOrDirectory)
        }
    }

    func testProcessDescriptor_reportsTheExitOfItsProcess() throws {
        let pid = try ChildProcesses.spawn(SpawnRequest(arguments: ["sleep", "30"], environment: CurrentProcess.environment))
        let process = try ProcessDescriptor.open(pid: pid)
        defer { process.close() }
        XCTAssertFalse(process.hasExited)
        try CurrentProcess.signal(pid, SignalNumber.kill)
        XCTAssertEqual(WaitStatus(try ChildProcesses.waitForExit(pid)).signal, SignalNumber.kill)
        XCTAssertTrue(process.hasExited)
    }

    func testFileChangeWatch_seesAWatchedFileReplaced_notAnotherOne() throws {
        let watch = try FileChangeWatch()
        try watch.watch(directory: directory, name: "watched")
        try Data("a".utf8).write(to: URL(fileURLWithPath: directory + "/other"))
        XCTAssertFalse(try watch.read().changed)
        try Data("b".utf8).write(to: URL(fileURLWithPath: directory + "/watched"), options: .atomic)
        XCTAssertTrue(try watch.read().changed)
        XCTAssertThrowsError(try watch.watch(directory: directory + "/missing", name: "x")) { error in
            XCTAssertEqual((error as? SystemCallError)?.errno, .noSuchFileOrDirectory)
        }
    }

    func testUnixDatagramSocket_bindsOnce_refusesALongPath_andTimesOutEmpty() throws {
        let path = directory + "/notify"
        let socket = try UnixDatagramSocket(bindingTo: path)
        XCTAssertNil(socket.receive(within: 10))
        XCTAssertThrowsError(try UnixDatagramSocket(bindingTo: path)) { error in
            XCTAssertEqual((error as? SystemCallError)?.errno, Errno(rawValue: EADDRINUSE))
        }
        XCTAssertThrowsError(try UnixDatagramSocket(bindingTo: "/" + String(repeating: "x", count: 200))) { error in
            XCTAssertEqual((error as? SystemCallError)?.errno, .fileNameTooLong)
        }
    }

    func testUserDatabase_knowsRoot_andNotAMissingGroupOrUser() {
        XCTAssertEqual(UserDatabase.groupID(named: "root"), 0)
        XCTAssertNil(UserDatabase.groupID(named: "schedd-no-such-group"))
        XCTAssertEqual(UserDatabase.groups(ofUser: 0)?.contains(0), true)
        XCTAssertNil(UserDatabase.groups(ofUser: 3_999_999_999))
    }
}
