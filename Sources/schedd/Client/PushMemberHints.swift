import Scheduler

/// "Did you mean" for push members schedd does not read (CONTRACT §1 ignores them; `schedd push`
/// says so): `bk.local.titel: unknown member (did you mean title?)`. The names come from the decoder
/// (`PushDecoder.knownMembers(at:)`), the nearness from `closestMatch`.

/// ` (did you mean title?)` for the unknown member at `path` (`bk.local.titel`), or "".
func memberHint(_ path: String) -> String {
    guard let dot = path.lastIndex(of: ".") else { return "" }
    let parent = String(path[..<dot]), name = String(path[path.index(after: dot)...])
    guard let known = PushDecoder.knownMembers(at: parent), let near = closestMatch(to: name, among: known) else { return "" }
    return " (did you mean \(near)?)"
}

/// The unknown members of a push the daemon rejected, each with its nearest known name
/// (`bk.local.titel: unknown member (did you mean title?)`), in document order: found by walking the
/// JSON (the decoder stops at the first broken rule, often the very member misspelled). Empty for
/// text that is not JSON. O(size of the push).
func unknownMemberHints(_ text: String) -> [String] {
    guard let value = try? JSONValue.parse(text), let bk = value[member: "bk"] else { return [] }
    var hints: [String] = []
    func walk(_ object: JSONValue, _ path: String) {
        guard case .object(let members) = object, let known = PushDecoder.knownMembers(at: path) else { return }
        for member in members {
            let child = path + "." + member.key
            if !known.contains(member.key) {
                hints.append("\(child): unknown member\(memberHint(child))")
            } else if child == "bk.local.actions", case .array(let items) = member.value {
                for (i, item) in items.enumerated() { walk(item, "\(child)[\(i)]") }
            } else {
                walk(member.value, child)
            }
        }
    }
    walk(bk, "bk")
    return hints
}
