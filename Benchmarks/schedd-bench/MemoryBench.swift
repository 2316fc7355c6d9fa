// STUB: replaced by the memory benchmark.
func memoryBenchmark(_ args: [String]) { print("memory: not implemented yet") }
