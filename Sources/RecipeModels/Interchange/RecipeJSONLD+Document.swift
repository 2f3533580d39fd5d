import Foundation

/// A recipe document as a server or another app stored it, read exactly (no trimming, no entity decoding): what a
/// pull, the answer to a `412` and a destination read.
public struct RecipeDocumentRead: Sendable, Equatable {
    /// `identifier` as written, if it is a text.
    public var identifier: String?
    /// `version`, if it is a whole number.
    public var version: Int64?
    /// `image` as written, if it is a text.
    public var image: String?
    /// The fields (without the image, which is the caller's to read), the other properties and the forms of the known
    /// ones.
    public var fields: RecipeFields
}

extension RecipeJSONLD {
    /// Reads a recipe document's bytes; nil when they are not one JSON object with a `name` text whose properties
    /// read as a recipe's (see `RecipeProperty`).
    public static func readDocument(_ data: Data) -> RecipeDocumentRead? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let members = JSONScanner.members(of: data)
        else { return nil }
        return readDocument(object: object, members: members)
    }

    /// Reads a document already parsed (`object`) and split into its members as written (`members`).
    public static func readDocument(object: [String: Any], members: [(key: String, value: String)]) -> RecipeDocumentRead? {
        guard object["name"] is String else { return nil }
        var fields = RecipeFields(title: "")
        for property in RecipeProperty.all {
            guard let value = object[property.key] else { continue }
            guard property.read(value, &fields) else { return nil }
        }
        var other: [String: String] = [:]
        var forms: [String: String] = [:]
        for (key, value) in members {
            if RecipeProperty.named(key) != nil {
                forms[key] = value
            } else if !RecipeProperty.protocolKeys.contains(key) {
                other[key] = value
            }
        }
        fields.received = ReceivedProperties(other: other, forms: forms)
        let version = (object["version"] as? NSNumber).flatMap { Int64(exactly: $0.doubleValue) }
        return RecipeDocumentRead(
            identifier: object["identifier"] as? String, version: version, image: object["image"] as? String, fields: fields)
    }

    /// The members of `fields`' JSON-LD document, in sorted key order, without `@type`, `identifier`, `version`,
    /// `dateModified` and `image` (the caller's): every property read as a field, and every other property as it came.
    ///
    /// A property the recipe arrived with is written in the form it came in while that form still reads as the field's
    /// value, else in `recipes`' own shape. An unset property is left out unless the recipe arrived with it, or the
    /// recipe was made here and it is one the contract's document always has.
    public static func members(of fields: RecipeFields) -> [(key: String, value: [UInt8])] {
        var result: [(key: String, value: [UInt8])] = []
        let forms = fields.received.forms
        for property in RecipeProperty.all {
            let form = forms?[property.key]
            if let form, reads(form, as: property, in: fields) {
                result.append((property.key, Array(form.utf8)))
                continue
            }
            guard property.isSet(fields) || form != nil || (forms == nil && property.alwaysWritten) else { continue }
            var value: [UInt8] = []
            property.write(fields, &value)
            result.append((property.key, value))
        }
        for (key, value) in fields.received.other
        where RecipeProperty.named(key) == nil && !RecipeProperty.protocolKeys.contains(key) {
            result.append((key, Array(value.utf8)))
        }
        return result.sorted { JSONBytes.precedes($0.key, $1.key) }
    }

    /// Whether `form` (a property's JSON text as it came) reads as the value `fields` hold for `property`.
    ///
    /// Keywords read as they are kept too: an import keeps them as the store does (`normalizeKeywords`: blanks around
    /// commas dropped), so `["weeknight","salt, pepper"]` is kept as `weeknight,salt,pepper`, and that form is still
    /// what the recipe says while nobody has edited the keywords.
    static func reads(_ form: String, as property: RecipeProperty, in fields: RecipeFields) -> Bool {
        guard let value = try? JSONSerialization.jsonObject(with: Data(form.utf8), options: .fragmentsAllowed) else {
            return false
        }
        var read = fields
        guard property.read(value, &read) else { return false }
        if property.key == "keywords", RecipeContent.normalizeKeywords(read.keywords) == fields.keywords {
            read.keywords = fields.keywords
        }
        return read == fields
    }

    // MARK: Reading values as they are

    /// A list of texts: a text alone, or the texts of a list's entries (`text(_:)` each; entries without one left out).
    static func texts(_ value: Any?) -> [String] {
        switch value {
        case let list as [Any]: return list.compactMap { text($0) }
        case nil, is NSNull: return []
        default: return text(value).map { [$0] } ?? []
        }
    }

    /// A name: a text, a `Person` or `Organization`'s `name`, or several joined by ", ".
    static func names(_ value: Any?) -> String {
        switch value {
        case let list as [Any]: return list.map { names($0) }.filter { !$0.isEmpty }.joined(separator: ", ")
        case let object as [String: Any]: return text(object["name"]) ?? ""
        default: return text(value) ?? ""
        }
    }

    /// A `NutritionInformation`'s properties as text (keys starting with `@` left out, and values without text).
    static func nutrition(_ value: Any?) -> [String: String] {
        guard let object = value as? [String: Any] else { return [:] }
        var result: [String: String] = [:]
        for (key, entry) in object where !key.hasPrefix("@") {
            if let text = text(entry) { result[key] = text }
        }
        return result
    }

    /// `recipeIngredient` as written: a list of texts (nil when an entry is not one), or one text with an ingredient
    /// per line.
    static func documentIngredients(_ value: Any?) -> [String]? {
        switch value {
        case nil, is NSNull: return []
        case let string as String: return string.components(separatedBy: "\n")
        case let list as [Any]:
            var result: [String] = []
            for element in list {
                guard let entry = text(element) else { return nil }
                result.append(entry)
            }
            return result
        default: return nil
        }
    }

    /// `recipeInstructions` as written: texts, `HowToStep`s (their `text`, else `name`) and `HowToSection`s (each
    /// step keeping the section's `name`), or one text with a step per line; nil when a step has no text.
    static func documentSteps(_ value: Any?, section: String = "", depth: Int = 0) -> [Step]? {
        guard depth < 6 else { return [] }
        switch value {
        case nil, is NSNull: return []
        case let string as String: return depth == 0 ? string.components(separatedBy: "\n").map { Step(text: $0) } : [Step(text: string, section: section)]
        case let number as NSNumber: return [Step(text: numberText(number), section: section)]
        case let list as [Any]:
            var steps: [Step] = []
            for element in list {
                if let string = element as? String {
                    steps.append(Step(text: string, section: section))
                } else {
                    guard let inner = documentSteps(element, section: section, depth: depth + 1) else { return nil }
                    steps += inner
                }
            }
            return steps
        case let object as [String: Any]:
            if let elements = object["itemListElement"] {
                let name = hasType(object, "HowToSection") ? (text(object["name"]) ?? section) : section
                return documentSteps(elements is [Any] ? elements : [elements], section: name, depth: depth + 1)
            }
            guard let text = text(object["text"]) ?? text(object["name"]) else { return nil }
            return [Step(text: text, section: section)]
        default: return nil
        }
    }

    /// Appends `steps` as `recipeInstructions`: `HowToStep`s, the consecutive steps of one section inside a
    /// `HowToSection` named after it.
    static func appendInstructions(_ steps: [Step], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        var index = 0
        while index < steps.count {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            let section = steps[index].section
            if section.isEmpty {
                appendStep(steps[index].text, to: &out)
                index += 1
                continue
            }
            out.append(contentsOf: #"{"@type":"HowToSection","itemListElement":["#.utf8)
            var first = true
            while index < steps.count, steps[index].section == section {
                if !first { out.append(UInt8(ascii: ",")) }
                appendStep(steps[index].text, to: &out)
                first = false
                index += 1
            }
            out.append(contentsOf: #"],"name":"#.utf8)
            JSONBytes.appendString(section, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
    }

    private static func appendStep(_ text: String, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"@type":"HowToStep","text":"#.utf8)
        JSONBytes.appendString(text, to: &out)
        out.append(UInt8(ascii: "}"))
    }
}
