/// Text fitted to a terminal's width, measured as the terminal shows it (`TerminalText.width`): wide characters take
/// two columns, combining marks none.
enum TextWrap {
    /// `text` broken into lines of at most `width` columns at spaces; a word longer than a line is cut where the line
    /// ends. At least one line (empty for empty text).
    static func lines(_ text: String, width: Int) -> [String] {
        let width = max(1, width)
        var lines: [String] = []
        var line = "", lineWidth = 0
        for word in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            var word = word
            var wordWidth = TerminalText.width(word)
            if lineWidth > 0 && lineWidth + 1 + wordWidth <= width {
                line += " " + word
                lineWidth += 1 + wordWidth
                continue
            }
            if lineWidth > 0 { lines.append(line) }
            while wordWidth > width {
                let (head, rest) = cut(word, at: width)
                lines.append(head)
                word = rest
                wordWidth = TerminalText.width(word)
            }
            (line, lineWidth) = (word, wordWidth)
        }
        if lineWidth > 0 || lines.isEmpty { lines.append(line) }
        return lines
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
