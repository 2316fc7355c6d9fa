import Glibc
import Scheduler

/// The process's arguments without the program name, each checked to be well-formed UTF-8.
///
/// `CommandLine.arguments` silently replaces bad bytes with U+FFFD, so `schedd cancel $'run_1:\xff'`
/// would cancel (and tombstone) an id nobody asked for; an argument that is not UTF-8 is rejected
/// instead (exit 1, `argument 2 is not valid UTF-8 (byte 6)`; with `--json` also `{"error": …}`). O(total length of the arguments).
func validatedCommandLineArguments() -> Result<[String], CommandFailure> {
    var arguments: [String] = []
    for i in 1..<Int(CommandLine.argc) {
        guard let pointer = CommandLine.unsafeArgv[i] else { continue }
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self),
                                        count: strlen(pointer))
        guard let argument = String(validating: bytes, as: UTF8.self) else {
            let offset = firstInvalidUTF8Offset(bytes) ?? 0
            let message = "argument \(i) is not valid UTF-8 (byte \(offset))"
            let body = JSONValue.object([JSONMember("error", .string(message))]).serialized()
            return .failure(CommandFailure(.rejected, message, jsonBody: body))
        }
        arguments.append(argument)
    }
    return .success(arguments)
}
