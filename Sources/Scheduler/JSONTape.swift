/// One parsed JSON document as a flat list of nodes over its input bytes: what `JSONValue.parse` builds its
/// tree from, and what `PushDecoder` reads directly (no tree, no `String` per key, numbers and unescaped strings
/// copied as written when re-serialized).
///
/// Layout: nodes in document order (pre-order). A container's elements follow it; an object's are its members
/// as key node (always `.string`) then value node. `next` of every node is the index just past its subtree,
/// so a container's elements are walked by `i = first; i = nodes[i].next`. Node 0 is the root.
///
/// Invariants: the grammar was checked by `JSONParser` (strict RFC 8259, the rules of `JSONValue.parse`), so
/// every string node's raw bytes are well-formed UTF-8 without unescaped control characters, and a string node
/// without `escaped` *is* its text (no backslash, hence no quote either). `bytes` is borrowed: a tape is valid
/// only while the buffer it was parsed from is (inside the caller's `withContiguousStorageIfAvailable` or
/// `withUnsafeBufferPointer`); it is never stored beyond that.
struct JSONTape {
    enum Kind: UInt8 { case null, `false`, `true`, number, string, array, object }

    struct Node {
        var kind: Kind
        /// A string holding at least one escape (its text differs from its raw bytes).
        var escaped: Bool
        /// A string without escapes whose bytes are all ASCII (then its text equals another's exactly when
        /// their bytes do, whatever Unicode's canonical equivalence says).
        var ascii: Bool
        /// The raw bytes: a number's literal, a string's content between its quotes. Unused for the rest.
        var start: Int
        var end: Int
        /// Elements of an array, members of an object (each member is two nodes).
        var count = 0
        /// The index just past this node's subtree.
        var next: Int

        init(_ kind: Kind, start: Int = 0, end: Int = 0, next: Int, escaped: Bool = false, ascii: Bool = false) {
            self.kind = kind; self.start = start; self.end = end; self.next = next; self.escaped = escaped
            self.ascii = ascii
        }
    }

    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var nodes: [Node] = []

    /// Parses `bytes` with the rules and errors of `JSONValue.parse(_:maxDepth:)`. O(n).
    init(parsing bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) throws(JSONError) {
        self.bytes = bytes
        // A value takes at least 2 bytes with its separator: reserving a sixth of the input covers a typical
        // document in one allocation without holding much more than it needs.
        nodes.reserveCapacity(min(bytes.count / 6 + 4, 4_096))
        var parser = JSONParser(bytes, maxDepth: maxDepth)
        try parser.parseDocument(into: &nodes)
    }

    subscript(_ i: Int) -> Node { nodes[i] }

    /// The raw bytes of node `i` (a number's literal, a string's content as written).
    func raw(_ i: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[nodes[i].start..<nodes[i].end])
    }

    /// The text of string node `i`, escapes decoded.
    func string(_ i: Int) -> String {
        let node = nodes[i]
        guard node.escaped else { return String(decoding: raw(i), as: UTF8.self) }
        var parser = JSONParser(bytes, maxDepth: 0)
        parser.position = node.start - 1
        return (try? parser.parseString()) ?? ""
    }

    /// Calls `body` with the UTF-8 text of string node `i` (its raw bytes unless escaped).
    func withText<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let node = nodes[i]
        guard node.escaped else { return body(raw(i)) }
        var parser = JSONParser(bytes, maxDepth: 0)
        parser.position = node.start
        var buffer: [UInt8] = []
        buffer.reserveCapacity(node.end - node.start)
        try? parser.parseStringSlowly(into: &buffer)
        return buffer.withUnsafeBufferPointer(body)
    }

    /// Whether string node `i`'s text is exactly `name`'s bytes.
    func text(_ i: Int, equals name: StaticString) -> Bool {
        let node = nodes[i]
        let expected = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        if !node.escaped {
            return node.end - node.start == expected.count && JSONTape.equal(raw(i), expected)
        }
        return withText(i) { JSONTape.equal($0, expected) }
    }

    /// Whether string nodes `a` and `b` are equal as Swift strings (canonical equivalence, what a dictionary
    /// keyed by them would say): equal bytes are, two different all-ASCII texts are not, and anything else is
    /// decided by `String ==`.
    func textsEqual(_ a: Int, _ b: Int) -> Bool {
        if nodes[a].ascii && nodes[b].ascii { return JSONTape.equal(raw(a), raw(b)) }
        return withText(a) { ta in
            withText(b) { tb in
                if JSONTape.equal(ta, tb) { return true }
                if JSONTape.isASCII(ta) && JSONTape.isASCII(tb) { return false }
                return String(decoding: ta, as: UTF8.self) == String(decoding: tb, as: UTF8.self)
            }
        }
    }

    static func equal(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        for k in 0..<a.count where a[k] != b[k] { return false }
        return true
    }

    /// Whether `a`'s bytes sort before `b`'s (bytewise, a prefix first).
    static func precedes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        for k in 0..<min(a.count, b.count) where a[k] != b[k] { return a[k] < b[k] }
        return a.count < b.count
    }

    static func isASCII(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        for b in text where b >= 0x80 { return false }
        return true
    }

    /// The entry after entry `k` of a container: past an object member's value (`k` is its key node), past an
    /// array element's subtree. The one walk over a container's entries (`i + 1`, then this, `count` times).
    @inline(__always) func entry(after k: Int, inObject: Bool) -> Int {
        inObject ? nodes[k + 1].next : nodes[k].next
    }

    /// The entry nodes of container node `i` in document order: an object's key nodes, an array's elements.
    private func entries(_ i: Int) -> [Int] {
        let inObject = nodes[i].kind == .object
        var out: [Int] = []
        out.reserveCapacity(nodes[i].count)
        var k = i + 1
        for _ in 0..<nodes[i].count {
            out.append(k)
            k = entry(after: k, inObject: inObject)
        }
        return out
    }

    /// The key node indices of object node `i`'s members, in document order.
    func memberKeys(_ i: Int) -> [Int] { entries(i) }

    /// The element node indices of array node `i`, in document order.
    func elements(_ i: Int) -> [Int] { entries(i) }

    /// The first key of object node `i` that an earlier key of it equals (`textsEqual`), as its text; nil when
    /// the keys are distinct. Pairs up to 16 members, a `Set` of the texts beyond: O(n) either way.
    func firstDuplicateKey(_ i: Int) -> String? {
        if nodes[i].count <= 16 {
            var a = i + 1
            for m in 0..<nodes[i].count {
                var b = i + 1
                for _ in 0..<m {
                    if textsEqual(b, a) { return string(a) }
                    b = entry(after: b, inObject: true)
                }
                a = entry(after: a, inObject: true)
            }
            return nil
        }
        var seen = Set<String>(minimumCapacity: nodes[i].count)
        for k in memberKeys(i) {
            let text = string(k)
            if !seen.insert(text).inserted { return text }
        }
        return nil
    }

    /// The first duplicate key anywhere inside node `i` (objects at any depth), in the order the decoder's
    /// `data` check has always searched (the tree-walking `PushRules.uniqueKeys` it replaces): a stack, an array's elements pushed in order, an object
    /// checked before its values are pushed. O(size of the subtree).
    func firstDuplicateKeyInside(_ i: Int) -> String? {
        // Most values have no duplicate at all: one scan over the subtree's nodes says so without the stack.
        var any = false
        for v in i..<nodes[i].next where nodes[v].kind == .object && firstDuplicateKey(v) != nil {
            any = true
            break
        }
        guard any else { return nil }
        var pending = [i]
        while let v = pending.popLast() {
            switch nodes[v].kind {
            case .array: pending.append(contentsOf: elements(v))
            case .object:
                if let duplicate = firstDuplicateKey(v) { return duplicate }
                for k in memberKeys(v) { pending.append(k + 1) }
            default: break
            }
        }
        return nil
    }

    /// The tree of node `i` (for `JSONValue.parse`). Iterative, O(size of the subtree).
    func value(at i: Int) -> JSONValue {
        struct Frame {
            var isObject: Bool
            var remaining: Int
            var items: [JSONValue] = []
            var members: [JSONMember] = []
            var pendingKey = ""
        }
        var stack: [Frame] = []
        var n = i
        while true {
            var value: JSONValue
            let node = nodes[n]
            switch node.kind {
            case .null: value = .null
            case .false: value = .bool(false)
            case .true: value = .bool(true)
            case .number: value = .number(String(decoding: raw(n), as: UTF8.self))
            case .string: value = .string(string(n))
            case .array where node.count > 0:
                var frame = Frame(isObject: false, remaining: node.count)
                frame.items.reserveCapacity(node.count)
                stack.append(frame)
                n += 1
                continue
            case .array: value = .array([])
            case .object where node.count > 0:
                var frame = Frame(isObject: true, remaining: node.count, pendingKey: string(n + 1))
                frame.members.reserveCapacity(node.count)
                stack.append(frame)
                n += 2
                continue
            case .object: value = .object([])
            }
            n += 1
            // Hand the finished value to the innermost open container; close containers as they fill.
            while let top = stack.indices.last {
                stack[top].remaining -= 1
                if stack[top].isObject {
                    stack[top].members.append(JSONMember(stack[top].pendingKey, value))
                    if stack[top].remaining == 0 {
                        value = .object(stack.removeLast().members)
                        continue
                    }
                    stack[top].pendingKey = string(n)
                    n += 1
                } else {
                    stack[top].items.append(value)
                    if stack[top].remaining == 0 {
                        value = .array(stack.removeLast().items)
                        continue
                    }
                }
                break
            }
            if stack.isEmpty { return value }
        }
    }

    /// Appends node `i`'s compact serialization to `out`: exactly `value(at: i).write(into:sortedKeys:)`'s
    /// bytes (the canonical form with `sortedKeys`: keys ordered by their UTF-8 bytes at every level, equal
    /// keys in document order). A number or an unescaped string is copied as written (that *is* its shortest
    /// form: no quote, backslash or control character in it); an escaped string is decoded and re-escaped.
    /// Iterative, O(size), plus the key sorts.
    func write(_ i: Int, into out: inout [UInt8], sortedKeys: Bool) {
        // The subtree's node count bounds both the open containers and the order entries: the scratch space
        // is sized by it and taken from the stack when small (no allocation for a push's objects).
        let size = nodes[i].next - i
        withUnsafeTemporaryAllocation(of: WriteFrame.self, capacity: size) { frames in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: size) { order in
                write(i, into: &out, sortedKeys: sortedKeys, frames: frames, order: order)
            }
        }
    }

    /// An open container while writing: its key nodes (objects) or element nodes (arrays) in output order
    /// are `order[base..<base + count]`, and `next` is the next one to write.
    private struct WriteFrame {
        var base: Int
        var count: Int
        var next: Int
        var isObject: Bool
    }

    private func write(_ i: Int, into out: inout [UInt8], sortedKeys: Bool,
                       frames: UnsafeMutableBufferPointer<WriteFrame>, order: UnsafeMutableBufferPointer<Int>) {
        var depth = 0  // open containers: frames[0..<depth]
        var used = 0   // order entries of the open containers: order[0..<used]
        var n = i
        while true {
            let node = nodes[n]
            switch node.kind {
            case .null: out.append(contentsOf: "null".utf8)
            case .false: out.append(contentsOf: "false".utf8)
            case .true: out.append(contentsOf: "true".utf8)
            case .number: out.append(contentsOf: raw(n))
            case .string: writeString(n, into: &out)
            case .array where node.count > 0:
                out.append(UInt8(ascii: "["))
                var e = n + 1
                for k in 0..<node.count {
                    order[used + k] = e
                    e = entry(after: e, inObject: false)
                }
                frames[depth] = WriteFrame(base: used, count: node.count, next: 1, isObject: false)
                depth += 1
                used += node.count
                n += 1
                continue
            case .array: out.append(contentsOf: "[]".utf8)
            case .object where node.count > 0:
                out.append(UInt8(ascii: "{"))
                var key = n + 1
                for k in 0..<node.count {
                    order[used + k] = key
                    key = entry(after: key, inObject: true)
                }
                let members = UnsafeMutableBufferPointer(rebasing: order[used..<(used + node.count)])
                if sortedKeys && node.count > 1 { sortKeys(members) }
                writeString(members[0], into: &out)
                out.append(UInt8(ascii: ":"))
                n = members[0] + 1
                frames[depth] = WriteFrame(base: used, count: node.count, next: 1, isObject: true)
                depth += 1
                used += node.count
                continue
            case .object: out.append(contentsOf: "{}".utf8)
            }
            // The value is written: go on with the next element of the innermost open container.
            while depth > 0 {
                let top = frames[depth - 1]
                guard top.next < top.count else {
                    out.append(UInt8(ascii: top.isObject ? "}" : "]"))
                    used -= top.count
                    depth -= 1
                    continue
                }
                frames[depth - 1].next = top.next + 1
                out.append(UInt8(ascii: ","))
                let entry = order[top.base + top.next]
                if top.isObject {
                    writeString(entry, into: &out)
                    out.append(UInt8(ascii: ":"))
                    n = entry + 1
                } else {
                    n = entry
                }
                break
            }
            if depth == 0 { return }
        }
    }

    /// String node `i` as a JSON string literal, as `JSONValue.writeString` writes its text.
    private func writeString(_ i: Int, into out: inout [UInt8]) {
        guard nodes[i].escaped else {
            // The literal as written, quotes included: an unescaped string is already in its shortest form.
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[(nodes[i].start - 1)..<(nodes[i].end + 1)]))
            return
        }
        JSONValue.writeString(string(i), into: &out)
    }

    /// Orders the key nodes in `keys` by their texts' UTF-8 bytes, equal texts in document order
    /// (insertion sort for the few members objects usually have, a stable sort beyond).
    private func sortKeys(_ keys: UnsafeMutableBufferPointer<Int>) {
        if keys.count > 16 {
            // `sorted` is not documented stable: break ties by document order (key node indices grow with it).
            let sorted = keys.sorted { a, b in keyPrecedes(a, b) || (!keyPrecedes(b, a) && a < b) }
            for k in sorted.indices { keys[k] = sorted[k] }
            return
        }
        for k in 1..<keys.count {
            let moving = keys[k]
            var j = k
            while j > 0 && keyPrecedes(moving, keys[j - 1]) {
                keys[j] = keys[j - 1]
                j -= 1
            }
            keys[j] = moving
        }
    }

    /// Whether string node `a`'s text sorts before `b`'s (bytewise, a prefix first).
    func keyPrecedes(_ a: Int, _ b: Int) -> Bool {
        if !nodes[a].escaped && !nodes[b].escaped { return JSONTape.precedes(raw(a), raw(b)) }
        return withText(a) { ta in withText(b) { tb in JSONTape.precedes(ta, tb) } }
    }
}
