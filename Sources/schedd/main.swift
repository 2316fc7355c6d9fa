import Glibc

exit(runCommandLine(Array(CommandLine.arguments.dropFirst())).rawValue)
