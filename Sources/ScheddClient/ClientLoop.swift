import Foundation
import ScheddBus
import ScheddSystem
import ScheddClientCore
import Synchronization

/// The thread that owns a client's bus connection: an sd-event loop (ScheddBus's `EventLoop`) with
/// the connection attached, woken by a non-blocking pipe (ScheddSystem) when work is submitted from any
/// thread: a full pipe means a wake-up is already pending, so a submitter never blocks.
///
/// Invariant: the `BusConnection` and the `EventLoop` are created, used and freed on this thread only
/// (sd-bus objects are not thread-safe); other threads only append jobs and write one byte to the
/// pipe. Calls are asynchronous on the bus (`callAsync`), so a slow reply never holds up the others.
final class ClientLoop: Sendable {
    /// Work to run on the loop thread with its connection.
    typealias Job = @Sendable (BusConnection) -> Void

    private let jobs = Mutex<(queue: [Job], closed: Bool)>(([], false))
    private let wakeRead: FileDescriptor
    private let wakeWrite: FileDescriptor
    private let subscribers = Mutex<[UInt64: AsyncStream<ScheddSignal>.Continuation]>([:])
    private let nextSubscriber = Mutex<UInt64>(0)

    private init(wakeRead: FileDescriptor, wakeWrite: FileDescriptor) { self.wakeRead = wakeRead; self.wakeWrite = wakeWrite }

    /// Both ends stay open until no thread can write any more (a write after the loop ended must not
    /// reach a closed or reused descriptor, nor raise SIGPIPE).
    deinit {
        wakeRead.close()
        wakeWrite.close()
    }

    /// Starts the thread, connects to `target`, subscribes to schedd's signals and returns once the bus
    /// confirmed the subscription (so no signal sent after this returns is missed).
    static func start(_ target: BusTarget) async throws(ScheddError) -> ClientLoop {
        let ends: (read: FileDescriptor, write: FileDescriptor)
        do { ends = try FileDescriptor.pipe(nonBlocking: true) } catch { throw ScheddError(.unreachable, "pipe: \(error)") }
        let loop = ClientLoop(wakeRead: ends.read, wakeWrite: ends.write)
        let started: Result<Void, ScheddError> = await withCheckedContinuation { continuation in
            // ScheddSystem's thread (issue 32: threads only through the seam), named as before.
            guard let thread = SystemThread.start(name: "ScheddClient", { loop.main(target, started: continuation) }) else {
                continuation.resume(returning: .failure(ScheddError(.unreachable, "cannot start the client's thread")))
                return
            }
            thread.detach()
        }
        try started.get()
        return loop
    }

    /// Queues `job` for the loop thread; false (and `job` never runs) once the loop was closed.
    @discardableResult
    func submit(_ job: @escaping Job) -> Bool {
        let accepted = jobs.withLock { state -> Bool in
            if state.closed { return false }
            state.queue.append(job)
            return true
        }
        if accepted { wake() }
        return accepted
    }

    /// Stops the loop: queued jobs still run, later ones are refused; every signal stream finishes.
    func close() {
        let first = jobs.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        if first { wake() }
    }

    /// A new stream of the daemon's signals.
    func subscribe() -> AsyncStream<ScheddSignal> {
        let id = nextSubscriber.withLock { value -> UInt64 in
            value += 1
            return value
        }
        let (stream, continuation) = AsyncStream<ScheddSignal>.makeStream(bufferingPolicy: .bufferingNewest(100_000))
        continuation.onTermination = { [weak self] _ in _ = self?.subscribers.withLock { $0.removeValue(forKey: id) } }
        if jobs.withLock({ $0.closed }) {
            continuation.finish()
        } else {
            subscribers.withLock { $0[id] = continuation }
        }
        return stream
    }

    private func wake() {
        // EAGAIN: the pipe is full, so the loop has a wake-up pending already.
        _ = try? wakeWrite.writeAll([1])
    }

    // MARK: The loop thread

    private func main(_ target: BusTarget, started: CheckedContinuation<Result<Void, ScheddError>, Never>) {
        let loop: EventLoop
        let connection: BusConnection
        do throws(BusError) {
            loop = try EventLoop()
            connection = try BusConnection.open(target, description: "schedd-client")
            try connection.attach(to: loop)
            try loop.addReadable(fd: wakeRead.rawValue) { [self] in drain(loop: loop, connection: connection) }
            try connection.addMatch("type='signal',interface='\(SchedulerNames.interface)',path='\(SchedulerNames.objectPath)'") {
                [self] message in deliver(message)
            }
            // A round trip to the bus daemon: once it answers, the AddMatch sent before it is in force.
            try connection.callAsync(SchedulerNames.busPing, timeoutMicroseconds: 25_000_000, { _ throws(BusError) in }) {
                result in
                switch result {
                case .success: started.resume(returning: .success(()))
                case .failure(let error): started.resume(returning: .failure(ScheddError(error)))
                }
            }
        } catch {
            started.resume(returning: .failure(ScheddError(.unreachable, "cannot connect to \(target): \(error.description)")))
            return
        }
        _ = loop.run()
        connection.flush()
        connection.detach()
        connection.close()
        subscribers.withLock { all in
            for continuation in all.values { continuation.finish() }
            all.removeAll()
        }
    }

    /// Runs every queued job; exits the loop when the client was closed and nothing is left.
    private func drain(loop: EventLoop, connection: BusConnection) {
        while let bytes = try? wakeRead.read(upTo: 64), !bytes.isEmpty {}  // drained: EAGAIN ends it
        while true {
            let (batch, closed) = jobs.withLock { state -> ([Job], Bool) in
                defer { state.queue.removeAll() }
                return (state.queue, state.closed)
            }
            for job in batch { job(connection) }
            if batch.isEmpty {
                if closed { loop.exit(0) }
                return
            }
        }
    }

    private func deliver(_ message: BusMessage) {
        guard let signal = ScheddSignal(message) else { return }
        let targets = subscribers.withLock { Array($0.values) }
        for continuation in targets { continuation.yield(signal) }
    }
}
