import Glibc

switch validatedCommandLineArguments() {
case .success(let arguments):
    exit(runCommandLine(arguments).rawValue)
case .failure(let failure):
    Console.err("schedd: \(failure.message)")
    exit(failure.code.rawValue)
}
