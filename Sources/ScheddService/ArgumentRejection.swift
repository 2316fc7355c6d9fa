/// An argument value that breaks its method's rule (a cursor that is not one, a time outside the
/// supported range); the message names the method, the argument and the rule. The daemon answers
/// `org.schedd.Scheduler1.Error.InvalidArgument` with it.
public struct ArgumentRejection: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
