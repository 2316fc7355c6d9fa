/// The offset of the first byte of `bytes` that does not start a well-formed UTF-8 sequence
/// (overlong forms, encoded surrogates, code points above U+10FFFF and truncated sequences
/// included), or nil when all of `bytes` is well-formed. O(n).
func firstInvalidUTF8Offset(_ bytes: some Sequence<UInt8>) -> Int? {
    var iterator = bytes.makeIterator()
    var parser = Unicode.UTF8.ForwardParser()
    var offset = 0
    while true {
        switch parser.parseScalar(from: &iterator) {
        case .valid(let scalar): offset += scalar.count
        case .error: return offset
        case .emptyInput: return nil
        }
    }
}
