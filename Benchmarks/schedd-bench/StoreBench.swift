// STUB: replaced by the store benchmark.
func storeBenchmark(_ args: [String]) { print("store: not implemented yet") }
