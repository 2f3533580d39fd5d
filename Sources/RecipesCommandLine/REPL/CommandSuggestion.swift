import RecipeModels

/// The command a mistyped word most likely meant (`sycn` → `sync`), for the "did you mean" of the shell and the REPL.
enum CommandSuggestion {
    /// Words people type as commands for what an option of another command does: the command to type instead, in
    /// `dialect`'s words.
    static func elsewhere(_ word: String, dialect: CommandDialect) -> String? {
        let show = dialect == .shell ? "recipes show" : "show"
        switch word.lowercased() {
        case "scale", "servings", "resize", "multiply": return "to scale a recipe: `\(show) <id> --scale F` or `--servings N`"
        case "units", "convert", "metric", "imperial": return "to show a recipe in other measures: `\(show) <id> --units metric` or `us`"
        case "find", "grep": return dialect == .shell ? "to find recipes: `recipes search <words>`" : "to find recipes: `search <words>`"
        case "rm", "remove": return dialect == .shell ? "to delete a recipe: `recipes delete <id>`" : "to delete a recipe: `delete <id>`"
        default: return nil
        }
    }

    /// The one line refusing `word` as a command: what is wrong, then (after `; `) the closest command or the one that
    /// does what the word asks for when there is one, then where the commands are listed, in parentheses.
    static func unknownCommand(_ word: String, among names: [String], dialect: CommandDialect) -> String {
        let prefix = dialect == .shell ? "recipes " : ""
        let suggestion = closest(to: word, among: names).map { "did you mean `\(prefix)\($0)`?" } ?? elsewhere(word, dialect: dialect)
        let list = dialect == .shell ? "`recipes --help` lists the commands" : "`help` lists the commands"
        return "unknown command \"\(TerminalText.clean(word))\"" + (suggestion.map { "; " + $0 } ?? "") + " (\(list))"
    }

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
