import Foundation

/// The plain-text recipe card `recipes edit <id>` opens in the editor: the fields as `Name: value` lines, then the
/// ingredients one per line and the steps one per paragraph. Reading back a card written from a recipe gives exactly
/// that recipe's content, whatever its text holds.
///
/// ```
/// Title: Tomato soup
/// Yield: 4 servings
/// Keywords: soup, vegan
///
/// Description:
/// A warm soup for cold evenings.
///
/// Ingredients:
/// - 800 g canned tomatoes
/// - 1 onion
///
/// Steps:
/// 1. Chop the onion.
///
/// 2. Simmer for 20 minutes,
/// then blend.
/// ```
///
/// Rules (README.md, "The recipe card"): a line starting with `#` is a comment; a line starting with one of the six
/// field names and a colon starts that field (each at most once, any order; a missing one is empty, but `Title:` is
/// required); `Title:`, `Yield:` and `Keywords:` take the rest of their line; the description is the lines under
/// `Description:` (blank lines around it dropped); each non-blank line under `Ingredients:` is one ingredient (one
/// leading `- ` dropped); under `Steps:` each paragraph is one step (its lines joined by a space, one leading `1. `
/// or `1) ` dropped). A value that starts with `"` is a JSON string on one line, which is how text with line breaks,
/// tabs, blanks at either end or a leading `"`, `#` or field name is written.
public enum RecipeCard {
    /// The field names, as the card writes them.
    public static let fieldNames = ["Title", "Yield", "Keywords", "Description", "Ingredients", "Steps"]

    /// The card of `content`, after `comments` (each written as a `# ` line).
    public static func text(of content: RecipeContent, comments: [String] = []) -> String {
        var lines = comments.map { $0.isEmpty ? "#" : "# " + $0 }
        if !lines.isEmpty { lines.append("") }
        lines.append("Title: " + line(content.title))
        lines.append(content.recipeYield.isEmpty ? "Yield:" : "Yield: " + line(content.recipeYield))
        let keywords = content.keywords
        if keywords.isEmpty {
            lines.append("Keywords:")
        } else if RecipeContent.normalizeKeywords(keywords) == keywords, isPlainLine(keywords) {
            lines.append("Keywords: " + keywords.replacingOccurrences(of: ",", with: ", "))
        } else {
            lines.append("Keywords: " + quoted(keywords))
        }
        lines.append("")
        lines.append("Description:")
        if !content.description.isEmpty {
            lines.append(isPlainDescription(content.description) ? content.description : quoted(content.description))
        }
        lines.append("")
        lines.append("Ingredients:")
        for ingredient in content.ingredients { lines.append("- " + line(ingredient)) }
        lines.append("")
        lines.append("Steps:")
        for (index, step) in content.steps.enumerated() {
            if index > 0 { lines.append("") }
            lines.append("\(index + 1). " + line(step))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: Writing values

    /// `text` as it stands on a line when that reads back the same, else as a JSON string.
    static func line(_ text: String) -> String { isPlainLine(text) ? text : quoted(text) }

    /// Whether `text` reads back unchanged from one line: not empty, no control characters, no blanks at either
    /// end, not starting with `"`.
    static func isPlainLine(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, let last = text.unicodeScalars.last else { return false }
        return first != "\"" && !isBlank(first) && !isBlank(last)
            && !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    }

    /// Whether a description reads back unchanged from its lines: each line plain or empty (inner blank lines are
    /// kept), none starting with `#` or a field name, no blank line at either end, not starting with `"`.
    static func isPlainDescription(_ text: String) -> Bool {
        let lines = lines(of: text)
        guard let first = lines.first, let last = lines.last, !first.isEmpty, !last.isEmpty, !first.hasPrefix("\"") else {
            return false
        }
        return lines.allSatisfy { line in
            guard !line.isEmpty else { return true }
            guard let end = line.unicodeScalars.last, !isBlank(end), !line.hasPrefix("#"), fieldName(of: line) == nil else {
                return false
            }
            return !line.unicodeScalars.contains { $0 != "\t" && $0.properties.generalCategory == .control }
        }
    }

    /// The lines of `text`, split at every line feed (also the one of a CR LF pair, which Swift counts as one
    /// character).
    static func lines(of text: String) -> [String] {
        text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
            .map { String(String.UnicodeScalarView($0)) }
    }

    static func isBlank(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.isWhitespace }

    /// `text` as a JSON string: `"` and `\` escaped, control characters as `\n`, `\t`, `\r` or `\u00XX`.
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.properties.generalCategory == .control {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// The field a line starts (`Title:` …, any case, at the line's start), with what follows the colon.
    static func fieldName<S: StringProtocol>(of line: S) -> (name: String, rest: Substring)? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let name = line[..<colon]
        guard let field = fieldNames.first(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) else { return nil }
        return (field, Substring(line[line.index(after: colon)...]))
    }
}
