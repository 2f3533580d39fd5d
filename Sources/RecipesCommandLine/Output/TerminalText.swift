/// Text that is safe to print and measured in terminal columns.
///
/// Titles and error messages can hold anything a user typed or a server sent; an escape sequence in one of them
/// must not reach the terminal (it could move the cursor, recolour or retitle the window), and a line break inside
/// one must not split what is meant to be one line.
enum TerminalText {
    /// `text` with every control character (C0, DEL, C1), line or paragraph separator and bidirectional override
    /// replaced by a space.
    static func clean(_ text: String) -> String {
        var needsWork = false
        for scalar in text.unicodeScalars where isUnsafe(scalar) {
            needsWork = true
            break
        }
        guard needsWork else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { result.append(isUnsafe(scalar) ? " " : scalar) }
        return String(result)
    }

    private static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true  // C0, DEL, C1 (0x9B is a one-byte CSI)
        case 0x2028, 0x2029: return true  // line and paragraph separators
        case 0x202A...0x202E, 0x2066...0x2069: return true  // bidirectional embeddings, overrides, isolates
        default: return false
        }
    }

    /// The columns `text` takes on a terminal: two for East Asian wide characters and emoji, none for a lone
    /// combining mark, one otherwise. An approximation of `wcswidth`, good enough to keep a row inside the screen.
    static func width(_ text: String) -> Int {
        var total = 0
        for character in text { total += width(of: character) }
        return total
    }

    /// The columns one grapheme takes.
    static func width(of character: Character) -> Int {
        if character.isASCII { return 1 }
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if isWide(first.value) { return 2 }
        if scalars.contains(where: { $0.value == 0xFE0F || $0.properties.isEmojiPresentation }) { return 2 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: return 1
        }
    }

    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1F300...0x1F64F,
            0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// `text` cut to at most `columns` columns, ending in `…` when something was cut.
    static func truncate(_ text: String, to columns: Int) -> String {
        guard columns > 0 else { return "" }
        if width(text) <= columns { return text }
        var result = ""
        var used = 0
        for character in text {
            let next = width(of: character)
            if used + next > columns - 1 { break }
            result.append(character)
            used += next
        }
        return result + "…"
    }

    /// `text` cut to `columns` columns and padded with spaces to exactly that width.
    static func fit(_ text: String, to columns: Int) -> String {
        let cut = truncate(text, to: columns)
        return cut + String(repeating: " ", count: max(0, columns - width(cut)))
    }

    /// `text` padded on the left with spaces to at least `columns` columns.
    static func padLeft(_ text: String, to columns: Int) -> String {
        String(repeating: " ", count: max(0, columns - width(text))) + text
    }
}
