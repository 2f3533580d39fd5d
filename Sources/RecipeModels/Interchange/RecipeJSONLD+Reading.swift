import Foundation

extension RecipeJSONLD {
    /// One `Recipe` node as an imported recipe. `recipeIngredient` (or the older `ingredients`) as a list or text,
    /// `recipeInstructions` as text, a list of texts, `HowToStep`s or `HowToSection`s (each step keeps its section's
    /// name), `recipeYield` as text, a number or a list (the first entry that is not a bare number, else the first),
    /// `keywords` as text or a list; the times, `url` and `author` (a text, or a `Person`'s or `Organization`'s name)
    /// as text, `recipeCategory`, `recipeCuisine`, `tool` and `suitableForDiet` as lists, `nutrition` as a
    /// `NutritionInformation`; text is trimmed and empty entries dropped. `received` is what the node's properties
    /// were as written (see `ReceivedProperties`).
    static func recipe(
        _ node: [String: Any], decodeEntities: Bool, received: ReceivedProperties = ReceivedProperties()
    ) throws(ImportError) -> ImportedRecipe {
        let clean: (String) -> String = { raw in
            let text = decodeEntities ? Self.decodeEntities(raw) : raw
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        // A title, yield, keyword list or ingredient is one line: line breaks in them become spaces.
        let line: (String) -> String = { raw in
            clean(raw).components(separatedBy: .newlines).map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty }.joined(separator: " ")
        }
        guard let name = text(node["name"]).map(line), !name.isEmpty else {
            throw ImportError("it has no name (schema.org \"name\"); every recipe needs a title")
        }
        var content = RecipeContent(title: name)
        content.description = text(node["description"]).map(clean) ?? ""
        content.recipeYield = yield(node["recipeYield"] ?? node["yield"]).map(line) ?? ""
        content.keywords = RecipeContent.normalizeKeywords(keywords(node["keywords"]).map(line) ?? "")
        content.ingredients = try ingredients(node["recipeIngredient"] ?? node["ingredients"]).map(line).filter { !$0.isEmpty }
        // A section's name is a heading: "Sauce:" is the section "Sauce".
        let heading: (String) -> String = { raw in
            let name = line(raw)
            return name.hasSuffix(":") ? String(name.dropLast()).trimmingCharacters(in: .whitespaces) : name
        }
        content.steps = try instructions(node["recipeInstructions"])
            .map { Step(text: clean($0.text), section: heading($0.section)) }.filter { !$0.text.isEmpty }
        var details = RecipeDetails()
        for (key, path) in RecipeDetails.timeKeys {
            details[keyPath: path] = text(node[key]).map(line) ?? ""
        }
        for (key, path) in RecipeDetails.listKeys {
            details[keyPath: path] = texts(node[key]).map(line).filter { !$0.isEmpty }
        }
        details.author = line(names(node["author"]))
        details.url = text(node["url"]).map(line) ?? ""
        for (key, value) in nutrition(node["nutrition"]) where !line(value).isEmpty {
            details.nutrition[key] = line(value)
        }
        content.details = details
        let texts = [content.title, content.description, content.recipeYield, content.keywords, details.prepTime,
                     details.cookTime, details.totalTime, details.author, details.url]
            + content.ingredients + content.steps.flatMap { [$0.text, $0.section] }
            + RecipeDetails.listKeys.flatMap { details[keyPath: $0.path] } + details.nutrition.values
        for text in texts where text.contains("\0") {
            throw ImportError("it holds a NUL character; remove it from the file")
        }
        return ImportedRecipe(content: content, image: image(node["image"]), received: received)
    }

    /// A text value: a string, a number, the first text of a list, or an object's `@value`, `text` or `name`.
    static func text(_ value: Any?) -> String? {
        switch value {
        case let string as String: return string
        case let number as NSNumber: return numberText(number)
        case let list as [Any]: return list.lazy.compactMap { text($0) }.first
        case let object as [String: Any]: return text(object["@value"] ?? object["text"] ?? object["name"])
        default: return nil
        }
    }

    /// `4` for 4 and 4.0, `1.5` for 1.5.
    static func numberText(_ number: NSNumber) -> String {
        let double = number.doubleValue
        if double.rounded() == double, abs(double) < 1e15 { return String(Int64(double)) }
        return number.stringValue
    }

    static func yield(_ value: Any?) -> String? {
        guard let list = value as? [Any] else { return text(value) }
        let texts = list.compactMap { text($0) }
        return texts.first { entry in !entry.allSatisfy { $0.isNumber || $0 == "." || $0.isWhitespace } } ?? texts.first
    }

    static func keywords(_ value: Any?) -> String? {
        if let list = value as? [Any] { return list.compactMap { text($0) }.joined(separator: ",") }
        return text(value)
    }

    static func ingredients(_ value: Any?) throws(ImportError) -> [String] {
        switch value {
        case nil, is NSNull: return []
        case let string as String: return string.components(separatedBy: .newlines)
        case let list as [Any]:
            var result: [String] = []
            for element in list {
                guard let entry = text(element) else {
                    throw ImportError("an entry of recipeIngredient is not text; write each ingredient as a string")
                }
                result.append(entry)
            }
            return result
        default:
            throw ImportError("recipeIngredient is neither a list nor text; write it as a list of strings")
        }
    }

    /// The steps of `recipeInstructions`, in order, each with the name of the `HowToSection` it is in.
    static func instructions(_ value: Any?, section: String = "", depth: Int = 0) throws(ImportError) -> [Step] {
        guard depth < 6 else { return [] }
        switch value {
        case nil, is NSNull: return []
        case let string as String:
            return string.components(separatedBy: .newlines).map { Step(text: $0, section: section) }
        case let number as NSNumber:
            return [Step(text: numberText(number), section: section)]
        case let list as [Any]:
            var steps: [Step] = []
            for element in list {
                if let string = element as? String {
                    steps.append(Step(text: string, section: section))  // one step per entry, even with line breaks
                } else {
                    steps += try instructions(element, section: section, depth: depth + 1)
                }
            }
            return steps
        case let object as [String: Any]:
            if let elements = object["itemListElement"] {
                var name = section
                if hasType(object, "HowToSection"), let given = text(object["name"]),
                   !given.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    name = given
                }
                return try instructions(elements, section: name, depth: depth + 1)
            }
            guard let step = text(object["text"]) ?? text(object["name"]) ?? text(object["description"]) else {
                throw ImportError("a step of recipeInstructions has no text; give each HowToStep a \"text\"")
            }
            return [Step(text: step, section: section)]
        default:
            throw ImportError("recipeInstructions is not text, a list or a HowToStep; write it as a list of HowToSteps")
        }
    }

    /// The first image: a URL, a path, or an `ImageObject`'s `url` / `contentUrl`; `data:` and other schemes are
    /// left out.
    static func image(_ value: Any?) -> ImageSource? {
        let reference: String?
        switch value {
        case let string as String: reference = string
        case let list as [Any]: return list.lazy.compactMap { image($0) }.first
        case let object as [String: Any]:
            reference = (object["url"] ?? object["contentUrl"] ?? object["@id"]) as? String
        default: reference = nil
        }
        guard let reference = reference?.trimmingCharacters(in: .whitespacesAndNewlines), !reference.isEmpty else {
            return nil
        }
        let lower = reference.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return .remote(url: reference) }
        if lower.hasPrefix("file:") {
            guard let url = URL(string: reference), url.isFileURL else { return nil }
            return .local(path: url.path)
        }
        if let colon = reference.firstIndex(of: ":"), reference[..<colon].allSatisfy({ $0.isLetter }),
           reference.distance(from: reference.startIndex, to: colon) > 1 {
            return nil  // data:, ftp: and the like
        }
        return .local(path: reference)
    }

    // MARK: HTML

    /// The contents of a page's `<script type="application/ld+json">` elements, in order (CDATA and comment
    /// wrappers removed).
    ///
    /// One pass over the page's bytes, as a browser reads it: a `<script …>` tag's body runs to the next
    /// `</script>` (whatever its type, so that a script's text is never read as tags); when no `</script>` follows,
    /// no later script can end either and the scan stops. A pattern search for each tag's end tag instead read the
    /// rest of the page once per unclosed tag: a page of many unclosed tags took minutes.
    public static func scripts(inHTML html: String) -> [String] {
        let bytes = Array(html.utf8)
        var scripts: [String] = []
        var index = 0
        while let open = HTMLScan.find("<script", in: bytes, from: index) {
            let afterName = open + 7
            guard afterName < bytes.count, !HTMLScan.isWordByte(bytes[afterName]) else {
                index = afterName
                continue
            }
            guard let tagEnd = bytes[afterName...].firstIndex(of: UInt8(ascii: ">")),
                let (close, closeEnd) = HTMLScan.endTag(in: bytes, from: tagEnd + 1)
            else { break }
            index = closeEnd
            guard HTMLScan.isJSONLD(bytes[afterName..<tagEnd]) else { continue }
            var script = String(decoding: bytes[(tagEnd + 1)..<close], as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            for (open, close) in [("<!--", "-->"), ("//<![CDATA[", "//]]>"), ("<![CDATA[", "]]>")]
            where script.hasPrefix(open) && script.hasSuffix(close) {
                script = String(script.dropFirst(open.count).dropLast(close.count))
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            if !script.isEmpty { scripts.append(script) }
        }
        return scripts
    }

    /// `text` with HTML character references decoded (`&amp;`, `&#39;`, `&#x2013;`, `&nbsp;` and the common named
    /// ones): pages often escape their JSON-LD that way.
    public static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        let named: [String: String] = [
            "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}", "ndash": "–",
            "mdash": "—", "hellip": "…", "frac12": "½", "frac14": "¼", "frac34": "¾", "deg": "°", "rsquo": "’",
            "lsquo": "‘", "rdquo": "”", "ldquo": "“", "eacute": "é", "egrave": "è", "times": "×",
        ]
        var out = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            guard let semicolon = after.prefix(10).firstIndex(of: ";") else {
                out += "&"
                rest = after
                continue
            }
            let name = after[..<semicolon]
            var decoded: String?
            if name.hasPrefix("#x") || name.hasPrefix("#X") {
                decoded = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            } else if name.hasPrefix("#") {
                decoded = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String(Character($0)) }
            } else {
                decoded = named[String(name)]
            }
            if let decoded {
                out += decoded
                rest = after[after.index(after: semicolon)...]
            } else {
                out += "&"
                rest = after
            }
        }
        return out + rest
    }
}
