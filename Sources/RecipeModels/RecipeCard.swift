import Foundation

/// The plain-text recipe card `recipes edit <id>` opens in the editor: the fields as `Name: value` lines, then the
/// description, the nutrition one property per line, the ingredients one per line and the steps one per paragraph
/// (a section's steps under its heading). Reading back a card written from a recipe gives exactly that recipe's
/// content, whatever its text holds.
///
/// ```
/// Title: Tomato soup
/// Yield: 4 servings
/// Keywords: soup, vegan
/// Prep time: 15m
/// Cook time: 1h 30m
/// Total time:
/// Category: Soup
/// Cuisine: Italian
/// Author: Jane Doe
/// URL: https://example.org/tomato-soup
/// Tools: Blender
/// Diets:
///
/// Description:
/// A warm soup for cold evenings.
///
/// Nutrition:
/// calories: 240 kcal
///
/// Ingredients:
/// - 800 g canned tomatoes
/// - 1 onion
///
/// Steps:
/// == For the soup ==
///
/// 1. Chop the onion.
///
/// 2. Simmer for 20 minutes,
/// then blend.
/// ```
///
/// Rules (docs/commands.md, "The recipe card"): a line starting with `#` is a comment; a line starting with one of the field
/// names and a colon starts that field (each at most once, any order; a missing one is empty, but `Title:` is
/// required); the one-line fields take the rest of their line; the times are read as `RecipeDuration` reads them (an
/// ISO 8601 time is kept as written); `Category:`, `Cuisine:`, `Tools:` and `Diets:` are lists separated by commas,
/// or one JSON array; the description is the lines under `Description:` (blank lines around it dropped); each
/// non-blank line under `Nutrition:` is `property: text`; each non-blank line under `Ingredients:` is one ingredient
/// (one leading `- ` dropped); under `Steps:` a line `== Name ==` starts a section (`== ==` ends it) and each paragraph
/// is one step (its lines joined by a space, one leading `1. ` or `1) ` dropped). A value that starts with `"` is a
/// JSON string on one line, which is how text with line breaks, tabs, blanks at either end or a leading `"`, `#` or
/// field name is written, and is taken as it is.
public enum RecipeCard {
    /// The field names, as the card writes them.
    public static let fieldNames = [
        "Title", "Yield", "Keywords", "Prep time", "Cook time", "Total time", "Category", "Cuisine", "Author", "URL",
        "Tools", "Diets", "Description", "Nutrition", "Ingredients", "Steps",
    ]

    /// The one-line text fields after `Keywords:`, with where each is kept.
    static let detailLines: [(name: String, path: any WritableKeyPath<RecipeDetails, String> & Sendable, isTime: Bool)] = [
        ("Prep time", \.prepTime, true), ("Cook time", \.cookTime, true), ("Total time", \.totalTime, true),
        ("Author", \.author, false), ("URL", \.url, false),
    ]

    /// The list fields, with where each is kept.
    static let detailLists: [(name: String, path: any WritableKeyPath<RecipeDetails, [String]> & Sendable)] = [
        ("Category", \.recipeCategory), ("Cuisine", \.recipeCuisine), ("Tools", \.tool), ("Diets", \.suitableForDiet),
    ]

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
        let details = content.details
        for (name, path, isTime) in detailLines.prefix(3) where isTime {
            lines.append(field(name, time(details[keyPath: path])))
        }
        for (name, path) in detailLists.prefix(2) { lines.append(field(name, list(details[keyPath: path]))) }
        for (name, path, _) in detailLines.suffix(2) { lines.append(field(name, optionalLine(details[keyPath: path]))) }
        for (name, path) in detailLists.suffix(2) { lines.append(field(name, list(details[keyPath: path]))) }
        lines.append("")
        lines.append("Description:")
        if !content.description.isEmpty {
            lines.append(isPlainDescription(content.description) ? content.description : quoted(content.description))
        }
        lines.append("")
        lines.append("Nutrition:")
        for (key, value) in details.nutrition.sorted(by: { $0.key < $1.key }) {
            lines.append((isPlainKey(key) ? key : quoted(key)) + ": " + line(value))
        }
        lines.append("")
        lines.append("Ingredients:")
        for ingredient in content.ingredients { lines.append("- " + line(ingredient)) }
        lines.append("")
        lines.append("Steps:")
        var section = ""
        for (index, step) in content.steps.enumerated() {
            if step.section != section {
                if index > 0 { lines.append("") }
                lines.append(step.section.isEmpty ? "== ==" : "== " + line(step.section) + " ==")
                section = step.section
            }
            if index > 0 || !section.isEmpty { lines.append("") }
            lines.append("\(index + 1). " + line(step.text))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `Name: value`, or `Name:` when the value is empty.
    static func field(_ name: String, _ value: String) -> String { value.isEmpty ? name + ":" : name + ": " + value }

    /// A time as the card writes it: `1h 30m` for a time in `recipes`' own ISO 8601 form, an ISO 8601 time in another
    /// form as it is (read back as written), anything else as a JSON string.
    static func time(_ stored: String) -> String {
        guard !stored.isEmpty else { return "" }
        guard let duration = try? RecipeDuration(parsing: stored), RecipeDuration.iso8601Seconds(stored) != nil else {
            return quoted(stored)
        }
        return duration.iso8601 == stored ? duration.description : line(stored)
    }

    /// A one-line value, empty when it is empty.
    static func optionalLine(_ text: String) -> String { text.isEmpty ? "" : line(text) }

    /// A list as the card writes it: `a, b` when that reads back the same, else a JSON array.
    static func list(_ items: [String]) -> String {
        let plain = items.allSatisfy { isPlainLine($0) && !$0.contains(",") && !$0.hasPrefix("[") }
        if plain { return items.joined(separator: ", ") }
        var bytes: [UInt8] = []
        JSONBytes.appendStrings(items, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether a nutrition key is written as it is: letters, digits, `_` and `-`, not starting with `"` or `#`.
    static func isPlainKey(_ key: String) -> Bool {
        !key.isEmpty && key.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
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
