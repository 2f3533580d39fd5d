/// The command a mistyped word most likely meant (`sycn` → `sync`), for the "did you mean" of the shell and the REPL.
enum CommandSuggestion {
    /// The name among `names` closest to `word`: one a word of up to four letters is one edit from, or a longer
    /// word two edits from (an edit being a letter typed, dropped, changed, or two letters swapped), else the one
    /// name `word` is the start of; nil when none is close, or when two are equally close.
    static func closest(to word: String, among names: [String]) -> String? {
        let word = word.lowercased()
        guard !word.isEmpty, !names.contains(word) else { return nil }
        let reach = word.count <= 4 ? 1 : 2
        let scored = names.map { (name: $0, distance: distance(word, $0)) }.filter { $0.distance <= reach }
        if let best = scored.map(\.distance).min() {
            let nearest = scored.filter { $0.distance == best }
            return nearest.count == 1 ? nearest[0].name : nil
        }
        let started = names.filter { $0.hasPrefix(word) }
        return word.count >= 2 && started.count == 1 ? started[0] : nil
    }

    /// The optimal string alignment distance of `a` and `b`: insertions, deletions, substitutions and swaps of two
    /// neighbouring characters, each counting one.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }

}
