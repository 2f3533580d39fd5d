import Foundation

/// The JSON-LD of a page as written: where its `Recipe` nodes are, and the nodes of its `@graph` that a recipe's
/// `author`, `nutrition` or `image` refers to by `@id` (as Yoast and other site plugins write them).
extension RecipeJSONLD {
    /// The properties whose references to another node of the graph an import follows: the node is put in their place,
    /// so that the recipe keeps it whole (a `Person` with its `url`, an `ImageObject` with its `url`).
    static let followedReferences = ["author", "nutrition", "image"]

    /// The texts of the `Recipe` nodes of a JSON-LD text as written, in the order `collectRecipes` finds their parsed
    /// values; nil when the text's structure cannot be walked.
    static func recipeTexts(_ text: String, depth: Int = 0) -> [String]? {
        guard depth < 8 else { return [] }
        let trimmed = text.drop { $0.isWhitespace }
        if trimmed.hasPrefix("[") {
            guard let elements = JSONScanner.elements(of: text) else { return nil }
            var found: [String] = []
            for element in elements {
                guard let inner = recipeTexts(element, depth: depth + 1) else { return nil }
                found += inner
            }
            return found
        }
        guard trimmed.hasPrefix("{") else { return [] }
        guard let members = JSONScanner.members(of: text) else { return nil }
        let byKey = Dictionary(members, uniquingKeysWith: { _, last in last })
        if let type = byKey["@type"].flatMap(parseFragment), hasType(["@type": type], "Recipe") { return [text] }
        var found: [String] = []
        for key in ["@graph", "mainEntity", "mainEntityOfPage"] {
            guard let inner = byKey[key] else { continue }
            guard let texts = recipeTexts(inner, depth: depth + 1) else { return nil }
            found += texts
        }
        return found
    }

    /// The nodes of a JSON-LD text that have an `@id`, by it: the top-level objects and the members of their
    /// `@graph`, parsed and as written.
    static func graphNodes(_ json: Any, text: String) -> (objects: [String: [String: Any]], texts: [String: String]) {
        var objects: [String: [String: Any]] = [:]
        func addObjects(_ value: Any) {
            if let list = value as? [Any] {
                list.forEach(addObjects)
            } else if let object = value as? [String: Any] {
                if let id = object["@id"] as? String { objects[id] = object }
                if let graph = object["@graph"] { addObjects(graph) }
            }
        }
        addObjects(json)
        var texts: [String: String] = [:]
        func addTexts(_ text: String) {
            if let elements = JSONScanner.elements(of: text) {
                elements.forEach(addTexts)
            } else if let members = JSONScanner.members(of: text) {
                let byKey = Dictionary(members, uniquingKeysWith: { _, last in last })
                if let id = byKey["@id"].flatMap(parseFragment) as? String { texts[id] = text }
                if let graph = byKey["@graph"] { addTexts(graph) }
            }
        }
        if !objects.isEmpty { addTexts(text) }
        return (objects, texts)
    }

    /// `node` with each followed reference (`{"@id": …}` alone, or a list of them) replaced by the node it names.
    static func following(_ node: [String: Any], in objects: [String: [String: Any]]) -> [String: Any] {
        guard !objects.isEmpty else { return node }
        func resolve(_ value: Any) -> Any {
            if let list = value as? [Any] { return list.map(resolve) }
            guard let object = value as? [String: Any], object.count == 1, let id = object["@id"] as? String,
                  let target = objects[id]
            else { return value }
            return target
        }
        var node = node
        for key in followedReferences { node[key] = node[key].map(resolve) }
        return node
    }

    /// The members of a node's text with each followed reference replaced by the text of the node it names.
    static func following(_ members: [(key: String, value: String)], in texts: [String: String]) -> [(key: String, value: String)] {
        guard !texts.isEmpty else { return members }
        func resolve(_ text: String) -> String {
            if let elements = JSONScanner.elements(of: text) { return "[" + elements.map(resolve).joined(separator: ",") + "]" }
            guard let inner = JSONScanner.members(of: text), inner.count == 1, inner[0].key == "@id",
                  let id = parseFragment(inner[0].value) as? String, let target = texts[id]
            else { return text }
            return target
        }
        return members.map { followedReferences.contains($0.key) ? ($0.key, resolve($0.value)) : $0 }
    }

    /// A JSON value's text parsed (a string, a number, a list, an object), or nil when it is not JSON.
    static func parseFragment(_ text: String) -> Any? {
        try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
    }

    /// The properties of a node built in memory (a microdata item, a Paprika recipe) as the recipe keeps them: its
    /// members in the order JSON-LD documents keep them, each written as JSON (see `received(_:node:)`).
    static func received(node: [String: Any]) -> ReceivedProperties {
        received(node.sorted { JSONBytes.precedes($0.key, $1.key) }.map { ($0.key, reserialized($0.value)) }, node: node)
    }

    /// What a node's properties were as written: the forms of those read as fields and every other property (the
    /// older names `ingredients` and `yield`, read as fields when the newer ones are missing, are not kept apart).
    static func received(_ members: [(key: String, value: String)], node: [String: Any]) -> ReceivedProperties {
        var other: [String: String] = [:]
        var forms: [String: String] = [:]
        for (key, value) in members {
            if RecipeProperty.named(key) != nil {
                forms[key] = value
            } else if RecipeProperty.protocolKeys.contains(key) {
                continue
            } else if key == "ingredients" && node["recipeIngredient"] == nil || key == "yield" && node["recipeYield"] == nil {
                continue
            } else {
                other[key] = value
            }
        }
        return ReceivedProperties(other: other, forms: forms)
    }
}
