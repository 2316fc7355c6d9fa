// STUB: replaced by the calendar benchmark.
func calendarBenchmark(_ args: [String]) { print("calendar: not implemented yet") }
