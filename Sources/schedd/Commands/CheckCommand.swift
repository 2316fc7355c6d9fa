import ScheddSystem
import Scheduler

/// `schedd check [--db PATH] [--full]`: checks the database file (docs/store.md "What is checked when"),
/// with a read-only connection of its own, so it may run while the daemon serves (WAL readers never block
/// the writer). `PRAGMA quick_check` per table, or `integrity_check` with `--full` (also compares every
/// index with its table). Prints `ok` (exit 0), or each problem, prefixed with its table (exit 1).
func runCheckCommand(_ args: ParsedArguments) throws(CommandFailure) -> ExitCode {
    let path = args.value("db") ?? DaemonOptions.defaultStateDirectory(system: args.value("bus") == "system") + "/schedd.db"
    guard FileSystem.isReadable(path) else { throw .failure("cannot read the database '\(path)'") }
    let problems = SQLiteScheduleStore.integrityCheck(path: path, full: args.has("full"))
    if args.json {
        Console.out(JSONValue.object([
            JSONMember("database", .string(path)), JSONMember("ok", .bool(problems.isEmpty)),
            JSONMember("problems", .array(problems.map { .string($0) })),
        ]).serialized())
    } else if problems.isEmpty {
        Console.out("\(path): ok")
    } else {
        for line in problems { Console.out("\(path): \(line)") }
    }
    return problems.isEmpty ? .success : .rejected
}
