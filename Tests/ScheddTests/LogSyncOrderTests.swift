import Foundation
import TestPrerequisites
import XCTest

/// The real daemon's order of system calls (issue 35 item 1): its commits write the write-ahead log on
/// the loop thread, a thread of its own `fdatasync`s the log, and no bus message leaves the daemon while
/// a write to the log is not yet synced — so no answer (and no signal) shows a write a power cut could
/// take back. Watched with strace on the running daemon, while clients push one-shots one per call and
/// list them.
final class LogSyncOrderTests: XCTestCase {
    private struct Call {
        let thread: Int
        let name: String
        let wal: Bool
        let result: String
    }

    func testNoBusMessageLeavesWhileAWriteToTheLogIsNotSynced_andTheSyncRunsOffTheLoop() throws {
        try requirePrerequisite(FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "strace (scripts/install-deps.sh)")
        try requirePrerequisite(getuid() == 0, "root (strace attaches to the daemon)")
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z")
        defer { h.tearDown() }
        let pid = try XCTUnwrap(h.daemon?.processIdentifier)
        let trace = h.directory.file("strace.out")
        let strace = Process()
        strace.executableURL = URL(fileURLWithPath: "/usr/bin/strace")
        strace.arguments = ["-f", "-qq", "-y", "-s", "0", "-o", trace, "-e", "trace=pwrite64,write,fdatasync,fsync,sendmsg,writev",
                            "-p", String(pid)]
        strace.standardError = FileHandle.nullDevice
        try strace.run()
        defer { if strace.isRunning { strace.terminate() }; strace.waitUntilExit() }
        // Attached once a call's answer shows in the trace.
        let deadline = ContinuousClock.now + .milliseconds(Int64(Double(20) * 1000))
        repeat {
            _ = try h.cli(["clock", "show"])
            let seen = (try? String(contentsOfFile: trace, encoding: .utf8)) ?? ""
            if seen.contains("sendmsg(") { break }
        } while ContinuousClock.now < deadline
        for n in 0..<24 {
            _ = try h.push(localPush(id: "run_sync:s\(n)", at: "2026-03-08T09:00:00Z"))
            if n % 6 == 5 { XCTAssertEqual(try h.list().count, n + 1) }
        }
        strace.interrupt()
        strace.waitUntilExit()
        let calls = try parse(String(contentsOfFile: trace, encoding: .utf8))
        let walWrites = calls.filter { $0.wal && ($0.name == "pwrite64" || $0.name == "write") }
        let text = try String(contentsOfFile: trace, encoding: .utf8)
        XCTAssertGreaterThanOrEqual(walWrites.count, 24, "every push wrote the log; the trace begins:\n\(text.prefix(3000))")
        let loop = try XCTUnwrap(walWrites.first?.thread)
        let syncs = calls.filter { $0.wal && ($0.name == "fdatasync" || $0.name == "fsync") }
        XCTAssertTrue(syncs.contains { $0.thread != loop && $0.result == "0" }, "the log is synced by a thread other than the loop")
        XCTAssertTrue(syncs.allSatisfy { $0.result == "0" }, "\(syncs.map(\.result))")
        // Replay the order: a sync covers the log writes completed before it began; a bus message must find
        // every completed write covered.
        var written = 0, covered = 0
        var startedAt: [Int: Int] = [:]  // thread → writes completed when its sync began
        var messages = 0
        for event in events(try String(contentsOfFile: trace, encoding: .utf8)) {
            switch event {
            case .completed(let call) where call.wal && (call.name == "pwrite64" || call.name == "write"):
                written += 1
            case .started(let thread, let name, let wal) where wal && (name == "fdatasync" || name == "fsync"):
                startedAt[thread] = written
            case .completed(let call) where call.wal && (call.name == "fdatasync" || call.name == "fsync"):
                if call.result == "0", let began = startedAt[call.thread] { covered = max(covered, began) }
            case .started(_, let name, _) where name == "sendmsg" || name == "writev":
                messages += 1
                XCTAssertEqual(covered, written, "a bus message left with \(written - covered) write(s) to the log not synced")
            default: break
            }
        }
        XCTAssertGreaterThan(messages, 24)
    }

    private enum Event {
        case started(thread: Int, name: String, wal: Bool)
        case completed(Call)
    }

    /// strace -f lines in order: a call is started and completed on one line, or started on an
    /// `<unfinished ...>` line and completed on its `<... name resumed>` line.
    private func events(_ text: String) -> [Event] {
        var unfinishedWal: [Int: Bool] = [:]
        var out: [Event] = []
        for line in text.split(separator: "\n").map(String.init) {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            guard parts.count == 2, let thread = Int(parts[0]) else { continue }
            let rest = String(parts[1].drop { $0 == " " })  // strace pads the thread id to five columns
            if rest.hasPrefix("<... ") {
                let name = String(rest.dropFirst(5).prefix { $0 != " " })
                let wal = unfinishedWal.removeValue(forKey: thread) ?? false
                out.append(.completed(Call(thread: thread, name: name, wal: wal, result: result(rest))))
                continue
            }
            guard let paren = rest.firstIndex(of: "(") else { continue }
            let name = String(rest[..<paren])
            let wal = rest.contains("-wal>")
            out.append(.started(thread: thread, name: name, wal: wal))
            if rest.hasSuffix("<unfinished ...>") {
                unfinishedWal[thread] = wal
            } else {
                out.append(.completed(Call(thread: thread, name: name, wal: wal, result: result(rest))))
            }
        }
        return out
    }

    private func parse(_ text: String) -> [Call] {
        events(text).compactMap { if case .completed(let call) = $0 { call } else { nil } }
    }

    /// What follows the last `) = `: the return value (`0`, `8232`, `-1 EIO (…)`).
    private func result(_ rest: String) -> String {
        guard let range = rest.range(of: ") = ", options: .backwards) else { return "?" }
        return String(rest[range.upperBound...].prefix { $0 != " " })
    }
}
