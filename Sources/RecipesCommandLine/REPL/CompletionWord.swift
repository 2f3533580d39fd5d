import RecipeModels

/// The word Tab completes when a quote is still open (`show "Lasagne al<TAB>`), where libedit's own word is only
/// what follows the last blank: what to insert in place of libedit's word so that the line reads the completed
/// word, closing quote included.
enum CompletionWord {
    /// Where the quote still open in `typed` starts (a `"` or `'` a shell would read as opening one), if one is.
    static func openQuote(in typed: String) -> String.Index? {
        var open: String.Index?
        var escaped = false
        for index in typed.indices {
            let character = typed[index]
            if escaped { escaped = false; continue }
            if let start = open {
                if character == typed[start] { open = nil } else if character == "\\", typed[start] == "\"" { escaped = true }
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" || character == "'" {
                open = index
            }
        }
        return open
    }

    /// `candidates` with each insert in the open `quote` (or as they are without one), less the `kept` text the
    /// line holds already from the quote on.
    static func within(
        _ candidates: [ReplCompletion.Candidate], quote: Character?, kept: String, typed: String
    ) -> [ReplCompletion.Candidate] {
        guard let quote else { return candidates }
        return candidates.map { candidate in
            let word = (try? LineSplitter.split(candidate.insert))?.first ?? candidate.insert
            let inner = quote == "\"" ? word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") : word
            let whole = String(quote) + inner + String(quote)
            return .init(insert: String(whole.dropFirst(kept.count)), display: candidate.display)
        }
    }

    /// What several candidates have in common to insert in place of libedit's word `typed`: their common start, or
    /// `typed` itself when that start says less than it (titles that differ in case from the first letter).
    static func common(_ candidates: [ReplCompletion.Candidate], kept: String, typed: String) -> String {
        let common = ReplCompletion.commonPrefix(candidates)
        let unquoted = { (text: String) in TitleMatch.key(String(text.drop(while: { $0 == "\"" || $0 == "'" }))) }
        return unquoted(kept + common).hasPrefix(unquoted(kept + typed)) ? common : typed
    }
}

extension CompletionWord {
    /// `displays` made to line up in the columns libedit lists them in: it pads each to the longest in bytes, so a
    /// title with accents or wide characters (more bytes than columns) would push the columns after it. Each gets an
    /// attribute reset (`ESC [ 0…0 m`, no columns) as long as makes every display's bytes less columns the same.
    static func aligned(_ displays: [String]) -> [String] {
        let extra = displays.map { $0.utf8.count - TerminalText.width($0) }
        let most = extra.max() ?? 0
        return zip(displays, extra).map { display, extra in
            display + "\u{1B}[" + String(repeating: "0", count: most - extra) + "m"
        }
    }
}
