import ScheddSystem

switch validatedCommandLineArguments() {
case .success(let arguments):
    CurrentProcess.exit(runCommandLine(arguments).rawValue)
case .failure(let failure):
    if CommandLine.arguments.contains("--json"), let body = failure.jsonBody { Console.out(body) }
    Console.err("schedd: \(failure.message)")
    CurrentProcess.exit(failure.code.rawValue)
}
