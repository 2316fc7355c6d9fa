/// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions) by Unicode scalar.
/// O(|a|·|b|) time and space; callers pass command-line words, so both are short.
///
/// `editDistance("lsit", "list") == 1` (one transposition); `editDistance("pus", "push") == 1`.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { d[i][0] = i }
    for j in 0...b.count { d[0][j] = j }
    for i in 1...a.count {
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
            }
        }
    }
    return d[a.count][b.count]
}

/// The candidate closest to `word` for a "did you mean" hint, or nil when none is close enough.
///
/// Close enough: `word` is a prefix of exactly one candidate (`hist` → `history`), or its distance
/// is at most 1 for words of up to 3 characters, 2 up to 6, else 3 — so `xyz` suggests nothing.
/// Ties go to the candidate listed first, so the table's order decides.
func closestMatch(to word: String, among candidates: [String]) -> String? {
    let prefixed = candidates.filter { $0.hasPrefix(word) }
    if word.count >= 2, prefixed.count == 1 { return prefixed[0] }
    let limit = word.count <= 3 ? 1 : (word.count <= 6 ? 2 : 3)
    var best: (candidate: String, distance: Int)?
    for candidate in candidates {
        let d = editDistance(word, candidate)
        if d <= limit, d < (best?.distance ?? Int.max) { best = (candidate, d) }
    }
    return best?.candidate
}
