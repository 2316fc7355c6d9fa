import Glibc
import SchedCalendar
import ScheddBus

/// What the daemon does when the world around it breaks (CONTRACT §9, docs/faults.md): it never
/// lingers in a state where it can no longer keep its promises — it says why and exits with a failure
/// status, and the service manager's `Restart=on-failure` brings it back.
extension Daemon {
    /// The connection of the bus it serves broke (the bus daemon died or restarted): nobody can reach
    /// the daemon any more, so it exits at once with a failure status (sd-bus reports the loss within
    /// milliseconds of the hang-up) and systemd restarts it on the new bus.
    func busLost() {
        fatal("lost the connection to \(options.bus) (the bus daemon stopped or restarted)")
    }

    /// Logs `reason`, tells the service manager (`STATUS=`), and makes the loop return with a failure
    /// status after the current callback. Nothing half-done is left: every write is one transaction.
    func fatal(_ reason: String) {
        logger.error("\(reason); exiting so that the service manager restarts schedd")
        ServiceManager.notify("STATUS=Failed: \(reason)")
        loop.exit(EXIT_FAILURE)
    }

    /// Sets the due timer to `instant` (off when nil). A timer sd-event refuses to arm would never
    /// fire: that is fatal, like any other broken watch.
    func armDueTimer(at instant: Instant?) {
        guard let dueTimer else { return }
        do throws(BusError) {
            if let instant {
                try dueTimer.arm(atMicroseconds: UInt64(max(1, instant.microseconds)))
            } else {
                try dueTimer.disarm()
            }
        } catch {
            fatal("cannot arm the due timer (\(error)): due notifications would not fire")
        }
    }
}
