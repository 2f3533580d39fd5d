import Foundation
import RecipeStore

/// Renders `recipes search` results: a table, best first, the matched words marked in each recipe's best excerpt;
/// or a JSON array.
struct SearchFormatter {
    /// Whether matched words are shown in bold (a terminal without `NO_COLOR`) rather than between brackets.
    var bold: Bool

    /// `ID  TITLE  FOUND IN  CONTEXT` rows, then a line saying how many matched when not all are shown.
    func text(_ result: SearchResult, words: [String], limit: Int) -> String {
        let query = words.joined(separator: " ")
        guard !result.hits.isEmpty else { return "no recipe matches \"\(TerminalText.clean(query))\"\n" }
        let rows = result.hits.map { hit in
            [String(hit.id), TerminalText.clean(hit.title), hit.fields.map(\.rawValue).joined(separator: ", "),
             mark(hit.snippet)]
        }
        var text = RecipeFormatter.table(header: ["ID", "TITLE", "FOUND IN", "CONTEXT"], rows: rows)
        if result.total > result.hits.count {
            text += "\(result.hits.count) of \(result.total) matching recipes shown; --limit 0 shows all\n"
        }
        return text
    }

    /// An array of `{id, title, fields, words, context}`, the matched words in `context` between brackets.
    static func json(_ result: SearchResult) -> String {
        var writer = JSONWriter()
        writer.array(result.hits) { writer, hit in
            writer.object([
                "id": .integer(hit.id), "title": .string(hit.title),
                "fields": .raw(RecipeFormatter.stringArray(hit.fields.map(\.rawValue))),
                "words": .raw(RecipeFormatter.stringArray(hit.matchedWords)),
                "context": .string(SearchFormatter(bold: false).markedPlain(hit.snippet)),
            ])
        }
        return writer.text + "\n"
    }

    /// The excerpt on one line, control characters cleaned, matched words marked.
    func mark(_ snippet: String) -> String {
        let marked = bold ? markedBold(snippet) : markedPlain(snippet)
        return marked.replacingOccurrences(of: "\n", with: " / ")
    }

    func markedPlain(_ snippet: String) -> String {
        clean(snippet).replacingOccurrences(of: SearchHit.markStart, with: "[")
            .replacingOccurrences(of: SearchHit.markEnd, with: "]")
    }

    func markedBold(_ snippet: String) -> String {
        clean(snippet).replacingOccurrences(of: SearchHit.markStart, with: "\u{1B}[1m")
            .replacingOccurrences(of: SearchHit.markEnd, with: "\u{1B}[0m")
    }

    /// `snippet` with line breaks kept and other control characters but the marks removed.
    private func clean(_ snippet: String) -> String {
        let keep: Set<Unicode.Scalar> = ["\n", "\u{2}", "\u{3}"]
        var out = String.UnicodeScalarView()
        for scalar in snippet.unicodeScalars where keep.contains(scalar) || scalar.properties.generalCategory != .control {
            out.append(scalar)
        }
        return String(out)
    }
}
