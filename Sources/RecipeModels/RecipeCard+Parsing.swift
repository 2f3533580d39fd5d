import Foundation

/// What is wrong with an edited recipe card: the line (1-based) and what to do about it.
public struct RecipeCardError: Error, LocalizedError, Sendable, Equatable {
    /// The line the problem is on, when it is on one.
    public var line: Int?
    /// What is wrong and what to do.
    public var message: String

    /// Creates an error.
    public init(line: Int?, _ message: String) {
        self.line = line
        self.message = message
    }

    /// `line 4: …`, or the message alone.
    public var errorDescription: String? { line.map { "line \($0): " + message } ?? message }
}

extension RecipeCard {
    /// The content a card holds, or nil when it holds nothing but comments and blank lines (the edit is abandoned).
    public static func parse(_ text: String) throws(RecipeCardError) -> RecipeContent? {
        var sections: [String: (line: Int, inline: Substring, body: [(line: Int, text: Substring)])] = [:]
        var current: String?
        var sawContent = false
        for (index, raw) in lines(of: text).enumerated() {
            let number = index + 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : Substring(raw)
            if line.hasPrefix("#") { continue }
            if line.contains("\0") { throw RecipeCardError(line: number, "the line holds a NUL character; remove it") }
            if let (name, rest) = fieldName(of: line) {
                if let earlier = sections[name] {
                    throw RecipeCardError(line: number, "a second \(name): (the first is on line \(earlier.line)); keep one")
                }
                sections[name] = (number, rest, [])
                current = name
                sawContent = true
                continue
            }
            guard let section = current else {
                if line.allSatisfy(\.isWhitespace) { continue }
                throw RecipeCardError(line: number, "text before the first field; start the recipe with \"Title: …\"")
            }
            sections[section]?.body.append((number, line))
        }
        guard sawContent else { return nil }
        guard let title = sections["Title"] else {
            throw RecipeCardError(line: nil, "there is no \"Title:\" line; every recipe needs a title")
        }
        var content = RecipeContent(title: try singleLine("Title", title))
        guard !content.title.isEmpty else {
            throw RecipeCardError(line: title.line, "the title is empty; give the recipe a name after \"Title:\"")
        }
        if let yield = sections["Yield"] { content.recipeYield = try singleLine("Yield", yield) }
        if let keywords = sections["Keywords"] {
            let value = try singleLineValue("Keywords", keywords)
            content.keywords = value.quoted ? value.text : RecipeContent.normalizeKeywords(value.text)
        }
        for (name, path, isTime) in detailLines {
            guard let section = sections[name] else { continue }
            let value = try singleLineValue(name, section)
            guard isTime, !value.quoted else {
                content.details[keyPath: path] = value.text
                continue
            }
            do {
                content.details[keyPath: path] = try RecipeDuration.stored(value.text)
            } catch {
                throw RecipeCardError(line: section.line, "\(name): \(error.message)")
            }
        }
        for (name, path) in detailLists {
            guard let section = sections[name] else { continue }
            content.details[keyPath: path] = try parseList(name, section)
        }
        if let description = sections["Description"] { content.description = try parseDescription(description) }
        if let nutrition = sections["Nutrition"] { content.details.nutrition = try parseNutrition(nutrition) }
        if let ingredients = sections["Ingredients"] { content.ingredients = try parseIngredients(ingredients) }
        if let steps = sections["Steps"] { content.steps = try parseSteps(steps) }
        return content
    }

    /// A list field: entries separated by commas (blanks around them and empty entries dropped), or one JSON array of
    /// texts.
    private static func parseList(_ name: String, _ section: Section) throws(RecipeCardError) -> [String] {
        let raw = try singleLineValue(name, section)
        let text = raw.text.trimmingCharacters(in: .whitespaces)
        guard !raw.quoted, text.hasPrefix("[") else {
            if raw.quoted { return [raw.text] }
            return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        guard let parsed = try? JSONSerialization.jsonObject(with: Data(text.utf8)), let list = parsed as? [String] else {
            throw RecipeCardError(
                line: section.line, "\(name): a list starting with [ must be one JSON array of texts, e.g. [\"a, b\", \"c\"]")
        }
        return list
    }

    /// The nutrition lines: `property: text` each (the property as a JSON string when it holds other characters).
    private static func parseNutrition(_ section: Section) throws(RecipeCardError) -> [String: String] {
        var lines = section.body
        if !section.inline.allSatisfy(\.isWhitespace) { lines.insert((section.line, section.inline), at: 0) }
        var nutrition: [String: String] = [:]
        for line in lines {
            let text = Substring(line.text.trimmingCharacters(in: .whitespaces))
            guard !text.isEmpty else { continue }
            var key: String
            var rest: Substring
            if text.hasPrefix("\"") {
                let closing = text.dropFirst().firstIndex { $0 == "\"" }
                guard let closing, let colon = text[text.index(after: closing)...].firstIndex(of: ":") else {
                    throw RecipeCardError(line: line.line, "a nutrition line is `property: text`, e.g. calories: 240 kcal")
                }
                key = try value(text[...closing], line: line.line).text
                rest = text[text.index(after: colon)...]
            } else {
                guard let colon = text.firstIndex(of: ":") else {
                    throw RecipeCardError(line: line.line, "a nutrition line is `property: text`, e.g. calories: 240 kcal")
                }
                key = String(text[..<colon]).trimmingCharacters(in: .whitespaces)
                rest = text[text.index(after: colon)...]
            }
            guard !key.isEmpty, !key.hasPrefix("@") else {
                throw RecipeCardError(line: line.line, "a nutrition line needs a property name before its colon, e.g. calories: 240 kcal")
            }
            if nutrition[key] != nil { throw RecipeCardError(line: line.line, "nutrition \(key) is given twice; keep one") }
            let written = try value(Substring(rest.trimmingCharacters(in: .whitespaces)), line: line.line).text
            if !written.isEmpty { nutrition[key] = written }
        }
        return nutrition
    }

    private typealias Section = (line: Int, inline: Substring, body: [(line: Int, text: Substring)])

    /// The value of a one-line field; text on the lines below it is an error.
    private static func singleLine(_ name: String, _ section: Section) throws(RecipeCardError) -> String {
        try singleLineValue(name, section).text
    }

    /// The value of a one-line field and whether it was written as a JSON string.
    private static func singleLineValue(
        _ name: String, _ section: Section
    ) throws(RecipeCardError) -> (text: String, quoted: Bool) {
        if let stray = section.body.first(where: { !$0.text.allSatisfy(\.isWhitespace) }) {
            if let colon = stray.text.firstIndex(of: ":"), stray.text[..<colon].allSatisfy({ $0.isLetter || $0 == " " }),
               !stray.text[..<colon].isEmpty {
                let names = fieldNames.map { $0 + ":" }.joined(separator: ", ")
                throw RecipeCardError(
                    line: stray.line, "unknown field \"\(stray.text[..<colon])\"; the fields are \(names)")
            }
            throw RecipeCardError(
                line: stray.line,
                "\(name): takes one line; put longer text under Description:, Ingredients: or Steps:")
        }
        return try value(section.inline.trimmingCharacters(in: .whitespaces)[...], line: section.line)
    }

    /// A value as written: a JSON string when it starts with `"`, else the text itself.
    private static func value(_ text: Substring, line: Int) throws(RecipeCardError) -> (text: String, quoted: Bool) {
        guard text.hasPrefix("\"") else { return (String(text), false) }
        guard let decoded = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed),
              let string = decoded as? String
        else {
            throw RecipeCardError(
                line: line,
                "text starting with \" must be one JSON string ending on this line, e.g. \"two\\nlines\"; "
                    + "check its quotes and backslashes, or remove the leading \"")
        }
        return (string, true)
    }

    private static func parseDescription(_ section: Section) throws(RecipeCardError) -> String {
        var lines = section.body
        let inline = section.inline.trimmingCharacters(in: .whitespaces)
        if !inline.isEmpty { lines.insert((section.line, inline[...]), at: 0) }
        let trimmed = lines.map { (line: $0.line, text: $0.text.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)) }
        guard let first = trimmed.firstIndex(where: { !$0.text.isEmpty }),
              let last = trimmed.lastIndex(where: { !$0.text.isEmpty })
        else { return "" }
        let kept = trimmed[first...last]
        if kept[first].text.hasPrefix("\"") {
            guard kept.count == 1 else {
                throw RecipeCardError(
                    line: kept[first].line,
                    "a description that starts with \" is one JSON string on one line; remove the leading \" "
                        + "or join the lines with \\n")
            }
            return try value(kept[first].text[...], line: kept[first].line).text
        }
        return kept.map(\.text).joined(separator: "\n")
    }

    private static func parseIngredients(_ section: Section) throws(RecipeCardError) -> [String] {
        var lines = section.body
        if !section.inline.allSatisfy(\.isWhitespace) { lines.insert((section.line, section.inline), at: 0) }
        var ingredients: [String] = []
        for line in lines {
            var text = Substring(line.text.trimmingCharacters(in: .whitespaces))
            guard !text.isEmpty else { continue }
            if text.hasPrefix("- ") {
                text = text.dropFirst(2)
            } else if text == "-" {
                text = ""
            }
            ingredients.append(try value(Substring(text.trimmingCharacters(in: .whitespaces)), line: line.line).text)
        }
        return ingredients
    }

    private static func parseSteps(_ section: Section) throws(RecipeCardError) -> [Step] {
        var lines = section.body
        if !section.inline.allSatisfy(\.isWhitespace) { lines.insert((section.line, section.inline), at: 0) }
        var paragraphs: [(section: String, lines: [(line: Int, text: String)])] = []
        var open = false
        var current = ""
        for line in lines {
            let text = line.text.trimmingCharacters(in: .whitespaces)
            if text.isEmpty {
                open = false
                continue
            }
            if text.count >= 4, text.hasPrefix("=="), text.hasSuffix("==") {
                let name = text.dropFirst(2).dropLast(2).trimmingCharacters(in: .whitespaces)
                current = try value(Substring(name), line: line.line).text
                open = false
                continue
            }
            if open {
                paragraphs[paragraphs.count - 1].lines.append((line.line, text))
            } else {
                paragraphs.append((current, [(line.line, text)]))
                open = true
            }
        }
        return try paragraphs.map { (paragraph) throws(RecipeCardError) -> Step in
            Step(text: try stepText(paragraph.lines), section: paragraph.section)
        }
    }

    /// The text of one step's paragraph: its lines joined by a space, one leading `1. ` or `1) ` dropped.
    private static func stepText(_ paragraph: [(line: Int, text: String)]) throws(RecipeCardError) -> String {
        var first = Substring(paragraph[0].text)
        if let number = first.firstIndex(where: { !$0.isASCII || !$0.isNumber }), number != first.startIndex,
           first[number] == "." || first[number] == ")" {
            let after = first.index(after: number)
            if after == first.endIndex {
                first = ""
            } else if first[after] == " " {
                first = first[first.index(after: after)...]
            }
        }
        first = Substring(first.trimmingCharacters(in: .whitespaces))
        if first.hasPrefix("\"") {
            guard paragraph.count == 1 else {
                throw RecipeCardError(
                    line: paragraph[0].line,
                    "a step that starts with \" is one JSON string on one line; remove the leading \" or join its lines")
            }
            return try value(first, line: paragraph[0].line).text
        }
        return ([String(first)] + paragraph.dropFirst().map(\.text)).joined(separator: " ")
    }
}
