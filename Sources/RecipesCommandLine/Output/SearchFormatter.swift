import Foundation
import RecipeStore

/// Renders `recipes search` results: a table, best first, the matched words marked in each recipe's best excerpt;
/// or a JSON array.
struct SearchFormatter {
    /// Whether matched words are shown in bold (a terminal without `NO_COLOR`) rather than between brackets.
    var bold: Bool
    /// The terminal's width, to which each row is cut (the context ending in `…`); nil on a pipe: rows as long as
    /// they are.
    var columns: Int? = nil

    /// The one way `text` and `json` decide `bold` for a standard output: a terminal that is not `dumb`, and no
    /// `NO_COLOR` (https://no-color.org).
    static func wantsBold(stdoutIsTerminal: Bool, environment: [String: String]) -> Bool {
        stdoutIsTerminal && environment["TERM"] != "dumb" && (environment["NO_COLOR"] ?? "").isEmpty
    }

    /// `ID  TITLE  FOUND IN  CONTEXT` rows, then a line saying how many matched when not all are shown.
    func text(_ result: SearchResult, words: [String], limit: Int) -> String {
        let query = words.joined(separator: " ")
        guard !result.hits.isEmpty else { return "no recipe matches \"\(TerminalText.clean(query))\"\n" }
        let rows = result.hits.map { hit in
            [TableCell(String(hit.id)), TableCell(hit.title), TableCell(hit.fields.map(\.rawValue).joined(separator: ", ")),
             Self.excerpt(hit.snippet)]
        }
        var text = TextTable.render(
            header: ["ID", "TITLE", "FOUND IN", "CONTEXT"], rows: rows, emphasis: bold ? .bold : .brackets,
            columns: columns.map { $0 - 1 })  // the last column left free: writing into it makes some terminals wrap
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

    /// The excerpt on one line as a table cell, the matched words its emphasised parts (line breaks shown as ` / `).
    static func excerpt(_ snippet: String) -> TableCell {
        var parts: [TableCell.Part] = []
        var current = "", emphasised = false
        func close() {
            if !current.isEmpty { parts.append(TableCell.Part(text: current, emphasised: emphasised)) }
            current = ""
        }
        for character in clean(snippet) {
            switch character {
            case Character(SearchHit.markStart): close(); emphasised = true
            case Character(SearchHit.markEnd): close(); emphasised = false
            case "\n": current += " / "
            default: current.append(character)
            }
        }
        close()
        return TableCell(parts: parts)
    }

    /// The excerpt with the matched words between brackets, line breaks kept (for `--json`).
    func markedPlain(_ snippet: String) -> String {
        Self.clean(snippet).replacingOccurrences(of: SearchHit.markStart, with: "[")
            .replacingOccurrences(of: SearchHit.markEnd, with: "]")
    }

    /// `snippet` with line breaks kept and other control characters but the marks removed.
    private static func clean(_ snippet: String) -> String {
        let keep: Set<Unicode.Scalar> = ["\n", "\u{2}", "\u{3}"]
        var out = String.UnicodeScalarView()
        for scalar in snippet.unicodeScalars where keep.contains(scalar) || scalar.properties.generalCategory != .control {
            out.append(scalar)
        }
        return String(out)
    }
}
