// Every sd_bus_message_* and sd_bus_creds_* call lives in this file (connections: SDBusShim.swift).
import CSystemd
import Glibc
import ScheddSystem

/// A borrowed `sd_bus_message *`: read arguments in order, append arguments in order. Valid only while
/// the callback or call that handed it out runs (keep a call with `deferReply()`).
public struct BusMessage {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    /// The method or signal name ("" when there is none).
    public var member: String { sd_bus_message_get_member(pointer).map { String(cString: $0) } ?? "" }

    /// The unique name of the sender (`:1.7`), when the bus told it.
    public var sender: String? { sd_bus_message_get_sender(pointer).map { String(cString: $0) } }

    /// True for signal `member` of `interface`.
    public func isSignal(interface: String, member: String) -> Bool {
        sd_bus_message_is_signal(pointer, interface, member) > 0
    }

    /// The D-Bus error this message carries, nil when it is not an error reply.
    func methodError(_ operation: String) -> BusError? {
        guard sd_bus_message_is_method_error(pointer, nil) > 0, let error = sd_bus_message_get_error(pointer) else {
            return nil
        }
        let errno = sd_bus_message_get_errno(pointer)
        var failure = BusError(operation: operation, name: error.pointee.name.map { String(cString: $0) },
                               message: error.pointee.message.map { String(cString: $0) }, errno: errno > 0 ? errno : EIO)
        failure.details = errorDetails()
        return failure
    }

    /// The strings after the message in an error reply's body (`replyError(details:)`); empty when the
    /// body is just the message or has another shape.
    private func errorDetails() -> [String] {
        guard let signature = sd_bus_message_get_signature(pointer, 1).map({ String(cString: $0) }),
              signature.count > 1, signature.allSatisfy({ $0 == "s" }), sd_bus_message_rewind(pointer, 1) >= 0 else { return [] }
        var strings: [String] = []
        var value: UnsafePointer<CChar>?
        while sd_bus_message_read_basic(pointer, CChar(UInt8(ascii: "s")), &value) > 0, let value {
            strings.append(String(cString: value))
        }
        return strings.count == signature.count ? Array(strings.dropFirst()) : []
    }

    // MARK: Reading

    /// Reads one basic value of D-Bus type `type` into `value`; false at the end of a container.
    private func read<T>(_ type: Character, _ value: inout T) throws(BusError) -> Bool {
        let r = withUnsafeMutablePointer(to: &value) { sd_bus_message_read_basic(pointer, CChar(type.asciiValue!), $0) }
        return try check(r, "read a '\(type)' argument of \(member)") > 0
    }

    private func required<T>(_ type: Character, _ initial: T) throws(BusError) -> T {
        var value = initial
        guard try read(type, &value) else { throw BusError(operation: "read a '\(type)' argument of \(member)", errno: ENXIO) }
        return value
    }

    public func readString() throws(BusError) -> String {
        let p: UnsafePointer<CChar>? = try required("s", nil)
        return String(cString: p!)
    }

    /// The next string of the current container, nil at its end.
    public func readStringIfAny() throws(BusError) -> String? {
        var p: UnsafePointer<CChar>?
        guard try read("s", &p), let p else { return nil }
        return String(cString: p)
    }

    /// Hands the next string of the current container to `body` as its UTF-8 bytes, without copying
    /// (sd-bus checked it is valid UTF-8 without NUL); nil at the end of the container. The bytes are
    /// valid only inside `body`. O(length) for the length, once.
    public func withNextString<T>(_ body: (UnsafeBufferPointer<UInt8>) -> T) throws(BusError) -> T? {
        var p: UnsafePointer<CChar>?
        guard try read("s", &p), let p else { return nil }
        return p.withMemoryRebound(to: UInt8.self, capacity: 1) { bytes in
            body(UnsafeBufferPointer(start: bytes, count: strlen(p)))
        }
    }

    /// True when every argument of the message (or of the current container) has been read.
    public var isAtEnd: Bool { sd_bus_message_at_end(pointer, 0) > 0 }

    public func readUInt32() throws(BusError) -> UInt32 { try required("u", UInt32(0)) }
    public func readInt32() throws(BusError) -> Int32 { try required("i", Int32(0)) }
    public func readUInt64() throws(BusError) -> UInt64 { try required("t", UInt64(0)) }
    public func readBool() throws(BusError) -> Bool { try required("b", Int32(0)) != 0 }

    /// Reads an `h` argument and returns a duplicate of the descriptor (close-on-exec), owned by the
    /// caller; the message's own copy closes with the message.
    public func readFileDescriptor() throws(BusError) -> Int32 {
        let fd: Int32 = try required("h", Int32(-1))
        do throws(Errno) {
            return try FileDescriptor(rawValue: fd).duplicateCloseOnExec().rawValue
        } catch {
            throw BusError(operation: "keep a descriptor passed with \(member)", errno: error.rawValue)
        }
    }

    /// Enters a variant whose contents are `signature`.
    public func enterVariant(_ signature: String) throws(BusError) {
        try check(sd_bus_message_enter_container(pointer, CChar(UInt8(ascii: "v")), signature), "read a variant of \(member)")
    }

    public func readStrings() throws(BusError) -> [String] {
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        try check(sd_bus_message_read_strv(pointer, &list), "read a string array of \(member)")
        guard let list else { return [] }
        var result: [String] = []
        var i = 0
        while let item = list[i] {
            result.append(String(cString: item))
            free(item)
            i += 1
        }
        free(list)
        return result
    }

    /// Enters a container (`a` with contents "s", `e` "sv", `v` "s" …); false when there is none here.
    @discardableResult
    public func enterContainer(_ type: Character, _ contents: String) throws(BusError) -> Bool {
        try check(sd_bus_message_enter_container(pointer, CChar(type.asciiValue!), contents),
                  "read a '\(type)\(contents)' container of \(member)") > 0
    }

    public func exitContainer() throws(BusError) {
        try check(sd_bus_message_exit_container(pointer), "leave a container of \(member)")
    }

    /// The D-Bus type of the next argument (`"s"`, `"a"` with contents `"y"` …), nil at the end of
    /// the current container (`sd_bus_message_peek_type`).
    public func peekType() throws(BusError) -> (type: Character, contents: String?)? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        guard try check(sd_bus_message_peek_type(pointer, &type, &contents), "inspect an argument of \(member)") > 0 else {
            return nil
        }
        return (Character(Unicode.Scalar(UInt8(bitPattern: type))), contents.map { String(cString: $0) })
    }

    /// Skips the next complete argument, whatever its type (`sd_bus_message_skip`).
    public func skipArgument() throws(BusError) {
        try check(sd_bus_message_skip(pointer, nil), "skip an argument of \(member)")
    }

    /// Reads an `ay` argument (`sd_bus_message_read_array`); the bytes are copied.
    public func readBytes() throws(BusError) -> [UInt8] {
        var data: UnsafeRawPointer?
        var size = 0
        try check(sd_bus_message_read_array(pointer, CChar(UInt8(ascii: "y")), &data, &size), "read a byte array of \(member)")
        guard let data, size > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: size))
    }

    /// Reads an `a{sv}` argument whose values are strings or byte arrays (UnifiedPush's variant
    /// dictionaries). Values of any other type are kept as `.other(signature)`, never read; a key given
    /// twice keeps its last value. Cost: linear in the message.
    public func readVariantDictionary() throws(BusError) -> [String: BusVariant] {
        guard try enterContainer("a", "{sv}") else {
            throw BusError(operation: "read an a{sv} argument of \(member)", errno: ENXIO)
        }
        var result: [String: BusVariant] = [:]
        while try enterContainer("e", "sv") {
            let key = try readString()
            guard let (_, contents) = try peekType(), let signature = contents else {
                throw BusError(operation: "read the value of '\(key)' in \(member)", errno: ENXIO)
            }
            try check(sd_bus_message_enter_container(pointer, CChar(UInt8(ascii: "v")), signature),
                      "read the value of '\(key)' in \(member)")
            switch signature {
            case "s": result[key] = .string(try readString())
            case "ay": result[key] = .bytes(try readBytes())
            default:
                try skipArgument()
                result[key] = .other(signature)
            }
            try exitContainer()
            try exitContainer()
        }
        try exitContainer()
        return result
    }

    // MARK: Appending

    public func append(_ value: String) throws(BusError) {
        let r = value.withCString { sd_bus_message_append_basic(pointer, CChar(UInt8(ascii: "s")), $0) }
        try check(r, "append a string to \(member)")
    }

    private func appendBasic<T: FixedWidthInteger>(_ type: Character, _ value: T) throws(BusError) {
        let r = withUnsafeBytes(of: value) { sd_bus_message_append_basic(pointer, CChar(type.asciiValue!), $0.baseAddress) }
        try check(r, "append a '\(type)' to \(member)")
    }

    public func append(_ value: UInt32) throws(BusError) { try appendBasic("u", value) }
    public func append(_ value: Int32) throws(BusError) { try appendBasic("i", value) }
    public func append(_ value: UInt64) throws(BusError) { try appendBasic("t", value) }
    public func append(_ value: UInt8) throws(BusError) { try appendBasic("y", value) }
    public func append(_ value: Bool) throws(BusError) { try appendBasic("b", Int32(value ? 1 : 0)) }

    public func append(_ values: [String]) throws(BusError) {
        var pointers: [UnsafeMutablePointer<CChar>?] = values.map { strdup($0) }
        pointers.append(nil)
        defer { for p in pointers { free(p) } }
        try check(pointers.withUnsafeMutableBufferPointer { sd_bus_message_append_strv(pointer, $0.baseAddress) },
                  "append a string array to \(member)")
    }

    /// Opens a container (`a` "{sv}", `e` "sv", `v` "y" …); close it with `closeContainer`.
    public func openContainer(_ type: Character, _ contents: String) throws(BusError) {
        try check(sd_bus_message_open_container(pointer, CChar(type.asciiValue!), contents),
                  "open a '\(type)\(contents)' container in \(member)")
    }

    public func closeContainer() throws(BusError) {
        try check(sd_bus_message_close_container(pointer), "close a container in \(member)")
    }

    /// Appends a byte array (`ay`, `sd_bus_message_append_array`).
    public func append(bytes: [UInt8]) throws(BusError) {
        let r = bytes.withUnsafeBytes { sd_bus_message_append_array(pointer, CChar(UInt8(ascii: "y")), $0.baseAddress, $0.count) }
        try check(r, "append a byte array to \(member)")
    }

    /// Appends an `a{sv}` whose values are strings or byte arrays, in the order given.
    public func append(variants: [(key: String, value: BusVariant)]) throws(BusError) {
        try openContainer("a", "{sv}")
        for (key, value) in variants {
            try openContainer("e", "sv")
            try append(key)
            switch value {
            case .string(let text):
                try openContainer("v", "s")
                try append(text)
            case .bytes(let bytes):
                try openContainer("v", "ay")
                try append(bytes: bytes)
            case .other(let signature):
                throw BusError(operation: "append a '\(signature)' variant to \(member)", errno: EINVAL)
            }
            try closeContainer()
            try closeContainer()
        }
        try closeContainer()
    }

    // MARK: Replying to a method call

    /// Sends a method return for this call, built by `build`.
    public func reply(_ build: (BusMessage) throws(BusError) -> Void) throws(BusError) {
        var reply: OpaquePointer?
        try check(sd_bus_message_new_method_return(pointer, &reply), "build the reply to \(member)")
        defer { sd_bus_message_unref(reply) }
        try build(BusMessage(reply!))
        try check(sd_bus_send(nil, reply, nil), "send the reply to \(member)")
    }

    /// Sends the D-Bus error `name` with `message` as the answer to this call; `details`, when given, are
    /// more strings after the message in the error's body (`s` becomes `s` + one `s` each: readers of the
    /// first string alone see the message as before).
    public func replyError(name: String, message: String, details: [String] = []) throws(BusError) {
        var error = sd_bus_error()
        sd_bus_error_set(&error, name, message)
        defer { sd_bus_error_free(&error) }
        guard !details.isEmpty else {
            try check(sd_bus_reply_method_error(pointer, &error), "send the error reply to \(member)")
            return
        }
        var reply: OpaquePointer?
        try check(sd_bus_message_new_method_error(pointer, &reply, &error), "build the error reply to \(member)")
        defer { sd_bus_message_unref(reply) }
        let body = BusMessage(reply!)
        for detail in details { try body.append(detail) }
        try check(sd_bus_send(nil, reply, nil), "send the error reply to \(member)")
    }

    /// Keeps this call beyond its handler, so that it can be answered later (its handler then returns
    /// `.deferred`). The caller sees no answer until `reply`/`replyError` of the result is called;
    /// dropping the result unanswered sends nothing (the caller's own timeout applies).
    public func deferReply() -> BusDeferredCall { BusDeferredCall(retaining: pointer) }
}

/// A value of an `a{sv}` dictionary as UnifiedPush uses them: a string, a byte array, or another
/// type left unread (its signature).
public enum BusVariant: Sendable, Equatable {
    case string(String)
    case bytes([UInt8])
    case other(String)

    /// The string value, nil for any other type.
    public var string: String? { if case .string(let text) = self { text } else { nil } }
}

/// A method call kept past its handler (`BusMessage.deferReply()`), answered once with `reply` or
/// `replyError`. Holds one reference to the message until then (or until dropped).
public final class BusDeferredCall {
    private var pointer: OpaquePointer?
    /// The method name (for logs).
    public let member: String

    init(retaining pointer: OpaquePointer) {
        self.pointer = sd_bus_message_ref(pointer)
        member = BusMessage(pointer).member
    }

    deinit { if let pointer { sd_bus_message_unref(pointer) } }

    /// The call itself, to read what its handler did not (nil once answered).
    public var message: BusMessage? { pointer.map(BusMessage.init) }

    /// Sends the method return, built by `build`. Answering twice does nothing.
    public func reply(_ build: (BusMessage) throws(BusError) -> Void) throws(BusError) {
        guard let pointer else { return }
        defer { release() }
        try BusMessage(pointer).reply(build)
    }

    /// Sends the D-Bus error `name` (with `details` after the message, see `BusMessage.replyError`).
    /// Answering twice does nothing.
    public func replyError(name: String, message: String, details: [String] = []) throws(BusError) {
        guard let pointer else { return }
        defer { release() }
        try BusMessage(pointer).replyError(name: name, message: message, details: details)
    }

    private func release() {
        if let pointer { sd_bus_message_unref(pointer) }
        pointer = nil
    }
}

extension BusError {
    /// From a filled `sd_bus_error` and the call's negative return value, freeing the error.
    init(consuming error: inout sd_bus_error, code: Int32, _ operation: String) {
        let name = error.name.map { String(cString: $0) }
        let message = error.message.map { String(cString: $0) }
        sd_bus_error_free(&error)
        self.init(operation: operation, name: name, message: message, errno: -code)
    }
}
