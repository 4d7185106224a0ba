// "Did you mean" for names typed by people: commands, options and playlist names. One place, so
// every tool suggests the same way and words its suggestion the same way.

package enum Suggestions {
    /// Edit distance counting a swap of two neighbours as one edit (optimal string alignment),
    /// since `lsit` for `list` is one slip, not two.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        // Three rows: the one before the previous is needed for swaps.
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }

    /// The greatest distance still worth suggesting: one slip in short words, one in three in
    /// longer ones.
    static func tolerance(for typed: String) -> Int { max(1, typed.count / 3) }

    /// The names `typed` most likely meant, in their given order: the ones it begins (`hist` for
    /// `history`) when there are at most three, else the nearest by edit distance within the
    /// tolerance, all of them when several are equally near. Case is ignored.
    package static func closest(to typed: String, among names: [String], limit: Int = 3) -> [String] {
        let typed = typed.lowercased()
        guard !typed.isEmpty else { return [] }
        let extending = names.filter { $0.lowercased().hasPrefix(typed) && $0.lowercased() != typed }
        if !extending.isEmpty, extending.count <= limit { return extending }
        let tolerance = tolerance(for: typed)
        let scored = names.compactMap { name -> (name: String, distance: Int)? in
            // Lengths further apart than the tolerance cannot be near: skip the table.
            guard abs(name.count - typed.count) <= tolerance else { return nil }
            let distance = editDistance(typed, name.lowercased())
            return distance <= tolerance ? (name, distance) : nil
        }
        guard let best = scored.map(\.distance).min() else { return [] }
        return Array(scored.filter { $0.distance == best }.map(\.name).prefix(limit))
    }

    /// "did you mean 'A'?", "did you mean 'A' or 'B'?", "did you mean 'A', 'B' or 'C'?"; nil for
    /// no names.
    package static func didYouMean(_ names: [String]) -> String? {
        let quoted = names.map { "'\($0)'" }
        guard let last = quoted.last else { return nil }
        let choices = quoted.count == 1 ? last : quoted.dropLast().joined(separator: ", ") + " or " + last
        return "did you mean \(choices)?"
    }
}
