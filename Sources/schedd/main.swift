import Glibc

switch validatedCommandLineArguments() {
case .success(let arguments):
    exit(runCommandLine(arguments).rawValue)
case .failure(let failure):
    if CommandLine.arguments.contains("--json"), let body = failure.jsonBody { Console.out(body) }
    Console.err("schedd: \(failure.message)")
    exit(failure.code.rawValue)
}
