/// One cell of a text table: text, parts of which may be emphasised (the words a search matched).
///
/// The text is data (a title, an excerpt: anything that was typed or received) and the emphasis is styling: each part
/// is cleaned of control characters and measured first, and only then is the styling put around it, so that cleaning
/// never touches an escape sequence of ours and the columns line up whatever the styling adds.
struct TableCell: Equatable {
    /// A run of text, emphasised or not.
    struct Part: Equatable {
        var text: String
        var emphasised: Bool
    }

    /// The runs of the cell, in order.
    var parts: [Part]

    /// A cell of plain text.
    init(_ text: String) { parts = [Part(text: text, emphasised: false)] }

    /// A cell of runs.
    init(parts: [Part]) { self.parts = parts }

    /// How emphasised parts are shown.
    enum Emphasis: Equatable {
        /// Between brackets: `[tomato]` (a pipe, `NO_COLOR`, a dumb terminal).
        case brackets
        /// In bold (SGR 1, then SGR 0 to end it) on a terminal.
        case bold
    }

    /// The cell as shown and the columns it takes: every part cleaned (`TerminalText.clean`), emphasised parts
    /// marked as `emphasis` says; the width counts brackets but not escape sequences.
    func rendered(_ emphasis: Emphasis) -> (text: String, width: Int) {
        var text = "", width = 0
        for part in parts {
            let clean = TerminalText.clean(part.text)
            width += TerminalText.width(clean)
            guard part.emphasised else {
                text += clean
                continue
            }
            switch emphasis {
            case .brackets:
                text += "[" + clean + "]"
                width += 2
            case .bold:
                text += "\u{1B}[1m" + clean + "\u{1B}[0m"
            }
        }
        return (text, width)
    }
}

/// Left-aligned columns separated by two spaces, measured in terminal columns; the last column is not padded and no
/// line ends in blanks.
enum TextTable {
    /// The table of `header` and `rows`, emphasised parts shown as `emphasis` says.
    /// With `columns`, the last column is cut (ending in `…`) so that no row is wider than that, as long as it keeps
    /// at least 10 columns.
    static func render(
        header: [String], rows: [[TableCell]], emphasis: TableCell.Emphasis = .brackets, columns: Int? = nil
    ) -> String {
        var rows = [header.map(TableCell.init)] + rows
        if let columns, header.count > 1 {
            var before = [Int](repeating: 0, count: header.count - 1)
            for row in rows {
                for index in before.indices { before[index] = max(before[index], row[index].rendered(emphasis).width) }
            }
            let room = max(10, columns - before.reduce(0) { $0 + $1 + 2 })
            rows = rows.map { row in row.dropLast() + [row[row.count - 1].truncated(toWidth: room, emphasis)] }
        }
        let all = rows.map { $0.map { $0.rendered(emphasis) } }
        var widths = [Int](repeating: 0, count: header.count)
        for row in all {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.width) }
        }
        var output = ""
        for row in all {
            var line = ""
            for (index, cell) in row.enumerated() {
                line += cell.text
                if index < row.count - 1 { line += String(repeating: " ", count: widths[index] - cell.width + 2) }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            output += line + "\n"
        }
        return output
    }
}
