import RecipeModels

extension ReplCommand {
    /// Whether `word` is written as an option is (`--servings`, `-x`): a dash, then a letter or a second dash. A
    /// number (`-5`), a dash alone and `--` (which ends the options) are not.
    static func looksLikeOption(_ word: String) -> Bool {
        guard word != "--", word.hasPrefix("-"), let second = word.dropFirst().first else { return false }
        return second == "-" || second.isLetter
    }

    /// The refusal of an option-like word the command does not take, with the line that gives it as text: the same
    /// words with `--` before it (a word with a blank quoted, as the REPL and a shell read it).
    static func notAnOption(
        _ word: String, of spec: ReplCommandSpec, words: [String], at index: Int, dialect: CommandDialect
    ) -> String {
        let takes = spec.options.isEmpty
            ? "\(spec.name) takes no options"
            : "\(spec.name) takes " + spec.options.joined(separator: ", ")
        let quoted = words.map(quotedWord)
        let example = ([spec.name] + quoted[..<index] + ["--"] + quoted[index...]).joined(separator: " ")
        let prefix = dialect == .shell ? "recipes " : ""
        return "\"\(word)\" is not an option (\(takes)); to write it as text, put it after --: `\(prefix)\(example)`"
    }

    /// `word` as the REPL and a shell read it back as one word: in single quotes when it is empty or holds a blank or
    /// a quote.
    static func quotedWord(_ word: String) -> String {
        guard word.isEmpty || word.contains(where: { $0.isWhitespace || "\"'\\".contains($0) }) else { return word }
        return "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}

extension ReplCommandSpec {
    /// The field names among `words`, with `ingredient 3` and `step 2` typed as two words read as one name, and
    /// `nutrition calories` or `property video` too (unless the next word names a field of its own).
    static func fieldNames(_ words: [String]) -> [String] {
        var names: [String] = []
        var rest = words[...]
        while let word = rest.popFirst() {
            if word == "ingredient" || word == "step", let number = rest.first, !number.isEmpty,
                number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber)
            {
                names.append(word + " " + number)
                rest = rest.dropFirst()
            } else if word == "nutrition" || word == "property", let key = rest.first, !key.isEmpty,
                (try? ConflictSelector(name: key)) == nil
            {
                names.append(word + " " + key)
                rest = rest.dropFirst()
            } else {
                names.append(word)
            }
        }
        return names
    }
}

extension ReplCommandSpec {
    /// The usage's alternatives (`ingredient add <id> <text>`, `ingredient rm <id> <n>`, …): split at each ` | ` that
    /// is not inside brackets, so `show <id> [--servings N | --scale F]` stays one.
    public var usages: [String] {
        var parts: [String] = [], current = "", depth = 0
        var rest = Substring(usage)
        while let character = rest.first {
            if depth == 0, rest.hasPrefix(" | ") {
                parts.append(current)
                current = ""
                rest = rest.dropFirst(3)
                continue
            }
            if character == "[" { depth += 1 } else if character == "]" { depth = max(0, depth - 1) }
            current.append(character)
            rest = rest.dropFirst()
        }
        return parts + [current]
    }
}
