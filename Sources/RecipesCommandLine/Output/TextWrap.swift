/// Text fitted to a terminal's width, measured as the terminal shows it (`TerminalText.width`): wide characters take
/// two columns, combining marks none.
enum TextWrap {
    /// `text` wrapped to `width` columns at blanks, its first row after `first`, the others after `rest` (a hanging
    /// indent); a word wider than what is left of a row fills it and goes on on the next. At least one row (empty,
    /// or `first`, for empty text).
    static func lines(_ text: String, width: Int, first: String = "", rest: String = "") -> [String] {
        var rows: [String] = []
        var row = first
        var rowWidth = TerminalText.width(first)
        var rowHasWord = false
        for word in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            var word = word
            let wordWidth = TerminalText.width(word)
            if rowHasWord && rowWidth + 1 + wordWidth > width {
                rows.append(row)
                row = rest
                rowWidth = TerminalText.width(rest)
                rowHasWord = false
            }
            if rowHasWord {
                row += " "
                rowWidth += 1
            }
            // A word wider than what is left of the row: as much as fits, then on the next rows.
            while rowWidth + TerminalText.width(word) > width, width - rowWidth > 0 {
                var part = ""
                var partWidth = 0
                var remainder = Substring(word)
                while let character = remainder.first, rowWidth + partWidth + TerminalText.width(of: character) <= width {
                    part.append(character)
                    partWidth += TerminalText.width(of: character)
                    remainder = remainder.dropFirst()
                }
                guard !part.isEmpty else { break }
                rows.append(row + part)
                row = rest
                rowWidth = TerminalText.width(rest)
                word = String(remainder)
            }
            row += word
            rowWidth += TerminalText.width(word)
            rowHasWord = true
        }
        rows.append(row)
        return rows
    }

    /// The start of `text` that fits in `width` columns, and the rest.
    static func cut(_ text: String, at width: Int) -> (String, String) {
        var used = 0
        var index = text.startIndex
        while index < text.endIndex {
            let next = TerminalText.width(of: text[index])
            if used + next > width { break }
            used += next
            index = text.index(after: index)
        }
        if index == text.startIndex, index < text.endIndex { index = text.index(after: index) }  // never an empty head
        return (String(text[..<index]), String(text[index...]))
    }
}

extension TableCell {
    /// The cell cut to at most `width` columns as shown with `emphasis`, ending in `…` when anything was cut.
    func truncated(toWidth width: Int, _ emphasis: Emphasis) -> TableCell {
        guard rendered(emphasis).width > width else { return self }
        let room = max(0, width - 1)  // the `…`
        var kept: [Part] = []
        var used = 0
        for part in parts {
            let marks = part.emphasised && emphasis == .brackets ? 2 : 0
            let text = TerminalText.clean(part.text)
            let partWidth = TerminalText.width(text) + marks
            if used + partWidth <= room {
                kept.append(Part(text: text, emphasised: part.emphasised))
                used += partWidth
                continue
            }
            let (head, _) = TextWrap.cut(text, at: max(0, room - used - marks))
            if !head.isEmpty, TerminalText.width(head) + marks + used <= room {
                kept.append(Part(text: head, emphasised: part.emphasised))
            }
            break
        }
        kept.append(Part(text: "…", emphasised: false))
        return TableCell(parts: kept)
    }
}
