extension PushDecoder {
    /// The member names the decoder reads in the object at `path` of a push — `bk`, `bk.local`,
    /// `bk.cancel`, `bk.action`, `bk.local.actions[N]` (any N) — or nil for any other path (`data`
    /// is the sender's, so it has none). For "did you mean" hints on unknown members: the lists are
    /// the decoder's own, so a member added to the decoder is known here at once.
    public static func knownMembers(at path: String) -> [String]? {
        let names: [StaticString]
        switch path {
        case "bk": names = bkKnown
        case "bk.local": names = localNames
        case "bk.cancel": names = cancelMembers
        case "bk.action": names = appActionMembers
        default:
            guard path.hasPrefix("bk.local.actions["), path.hasSuffix("]"),
                  path.dropFirst("bk.local.actions[".count).dropLast().allSatisfy(\.isNumber) else { return nil }
            names = actionMembers
        }
        return names.map(\.description)
    }
}
