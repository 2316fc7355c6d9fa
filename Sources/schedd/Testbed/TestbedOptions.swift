import SchedCalendar
import ScheddService
import ScheddSystem

/// `schedd testbed` options, checked before anything starts.
struct TestbedOptions {
    /// What the testbed's daemon does with a due notification.
    ///
    /// Each shown notification is the JSON line of `schedd run --notifier stdout`
    /// (`{"id","run","title","body","due","at","late","urgency",…}`).
    enum Notifier: String, CaseIterable {
        /// The lines are recorded in the file `$SCHEDD_TESTBED` names, for COMMAND to read.
        case recording
        /// The lines go to the testbed's standard output (beside COMMAND's), for a person watching;
        /// `$SCHEDD_TESTBED` stays empty.
        case stdout
        /// Nothing is shown (`schedd run --notifier none`; history still records `fired`).
        case none
    }

    /// `--fake-clock`: where the fake clock starts, as given (checked by parsing it here);
    /// default: the real time now, whole seconds.
    var fakeClock: String
    /// `--tz`: the daemon's device zone; default `UTC`, so a suite gives the same answers on every machine.
    var zone: String
    var notifier: Notifier
    /// `--keep`: leave the temporary directory (database, notifications, logs) behind.
    var keep: Bool
    /// `--print-env`: start in the background and print the variables instead of running COMMAND.
    var printEnvironment: Bool
    /// `--stop`: stop the background testbed `$SCHEDD_TESTBED_PID` names.
    var stop: Bool
    var command: [String]
    var json: Bool

    /// How long a child gets between SIGTERM and SIGKILL when the testbed tears down.
    static let stopGraceMilliseconds = 3000
    /// How long the bus and the daemon get to become ready.
    static let startDeadlineMilliseconds: Int64 = 30_000

    init(_ args: ParsedArguments) throws(CommandFailure) {
        json = args.json
        keep = args.has("keep")
        printEnvironment = args.has("print-env")
        stop = args.has("stop")
        command = args.positionals
        zone = args.value("tz") ?? "UTC"
        let rules = try Zones.named(zone)
        if let text = args.value("fake-clock") {
            guard instant(fromTimeText: text, in: rules) != nil else {
                throw .usage("--fake-clock needs an RFC 3339 time like 2026-03-08T01:00:00Z, not '\(text)'")
            }
            fakeClock = text
        } else {
            fakeClock = Instant(microseconds: Int64(SystemTime.realtimeSeconds) * 1_000_000).rfc3339
        }
        let name = args.value("notifier") ?? Notifier.recording.rawValue
        guard let kind = Notifier(rawValue: name) else {
            throw .usage("--notifier needs one of \(Notifier.allCases.map(\.rawValue).joined(separator: ", ")), not '\(name)'")
        }
        notifier = kind
        if stop {
            guard command.isEmpty, !printEnvironment else { throw .usage("testbed --stop takes nothing else") }
        } else if printEnvironment {
            guard command.isEmpty else { throw .usage("testbed --print-env runs no COMMAND; drop '\(command[0])'") }
            guard notifier != .stdout else {
                throw .usage("testbed --print-env has no standard output to print notifications to; use --notifier recording")
            }
        } else if command.isEmpty {
            throw .usage("testbed needs a COMMAND; usage: schedd testbed [OPTIONS] -- COMMAND [ARGUMENTS...]")
        }
    }
}

/// The private bus's configuration: a session-type bus listening on a socket in the testbed's
/// directory, open to every local client, with dbus-daemon's built-in (stock) limits and no
/// service directories (nothing is ever activated on it: an installed notification server or an
/// installed schedd stays out).
func testbedBusConfiguration(socketPath: String) -> String {
    """
    <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
     "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
    <!-- Written by schedd testbed: a private bus for one test run. Stock limits, no service dirs. -->
    <busconfig>
      <type>session</type>
      <listen>unix:path=\(socketPath)</listen>
      <auth>EXTERNAL</auth>
      <policy context="default">
        <allow send_destination="*" eavesdrop="true"/>
        <allow eavesdrop="true"/>
        <allow own="*"/>
      </policy>
    </busconfig>

    """
}

/// `schedd testbed` in the command table.
let testbedCommandSpec = CommandSpec(
    name: "testbed", arguments: "[OPTIONS] -- COMMAND [ARGUMENTS...]",
    summary: "Run COMMAND against a private bus and a fake-clock daemon of its own", positionalCount: 0...Int.max,
    options: [
        .value("fake-clock", "TIME", "Where the fake clock starts (default: now, whole seconds)"),
        .value("tz", "ZONE", "The daemon's device zone (default: UTC)"),
        .value("notifier", "recording|stdout|none",
               "Shown notifications go to the file $SCHEDD_TESTBED (recording, default), to stdout, or nowhere"),
        .flag("keep", "Keep the temporary directory (database, notifications, logs) and print its path"),
        .flag("print-env", "Start in the background and print the variables for 'eval' (with SCHEDD_TESTBED_PID, and the "
              + "shell's own DBUS_SESSION_BUS_ADDRESS saved for --stop)"),
        .flag("stop", "Stop the background testbed $SCHEDD_TESTBED_PID names, wait until it is gone, and print the lines "
              + "that restore the shell's DBUS_SESSION_BUS_ADDRESS: eval \"$(schedd testbed --stop)\""),
    ], details: [
        "COMMAND runs with DBUS_SESSION_BUS_ADDRESS set to the private bus and SCHEDD_TESTBED to the file of",
        "shown notifications (one JSON line each). Nothing of your own session is used: the bus, the database",
        "and the logs live in a temporary directory, removed afterwards. The exit status is COMMAND's.",
        "Example: schedd testbed --fake-clock 2026-12-24T08:00:00Z -- sh -c 'schedd push f.json && schedd clock advance 1d'",
        "         eval \"$(schedd testbed --print-env)\"; …; schedd testbed --stop",
    ])
