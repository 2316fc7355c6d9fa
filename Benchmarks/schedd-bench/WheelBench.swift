// STUB: replaced by the wheel benchmark.
func wheelBenchmark(_ args: [String]) { print("wheel: not implemented yet") }
