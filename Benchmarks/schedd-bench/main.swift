// schedd-bench: release-mode benchmarks. `swift run -c release schedd-bench <name> [args]`.
// Every comparison ends with one `RESULT <name> ours=… baseline=… ratio=<baseline/ours>` line.

let benchmarks: [(name: String, summary: String, run: ([String]) -> Void)] = [
    ("calendar", "next elapses: SchedCalendar vs Foundation Calendar.nextDate", calendarBenchmark),
    ("wheel", "timer wheel vs binary heap at 10k/100k/1M timers", wheelBenchmark),
    ("wheelprofile", "the wheel benchmark's phases once, for callgrind (instructions, cache misses)", wheelProfileBenchmark),
    ("store", "durable batched ingest vs raw sqlite3 inserts", storeBenchmark),
    ("memory", "engine memory per pending schedule", memoryBenchmark),
    ("pushpath", "the engine side of one Push call: decode, group commit, push, reply JSON", pushPathBenchmark),
    ("bulkpath", "the daemon's side of a bulk load (PushBatch calls through Service and GroupCommit, no bus)", bulkPathBenchmark),
    ("restore", "start-up parts with 1M pending (open, read, wheel, engine init)", restoreBenchmark),
    ("canceljobs", "an app's 1,000 firings with and without another app's cancellation jobs under way", cancelJobsBenchmark),
]

let args = Array(CommandLine.arguments.dropFirst())
if let name = args.first, let bench = benchmarks.first(where: { $0.name == name }) {
    bench.run(Array(args.dropFirst()))
} else if args.first == "all" {
    for bench in benchmarks { bench.run([]) }
} else {
    print("usage: schedd-bench <benchmark> [args]\n")
    for bench in benchmarks { print("  \(bench.name + String(repeating: " ", count: max(1, 11 - bench.name.count))) \(bench.summary)") }
    print("  all        every benchmark above")
}
