import Foundation

/// schema.org `Recipe` documents in JSON-LD (https://schema.org/Recipe), as recipe web pages, Mealie, Tandoor and
/// Nextcloud Cookbook publish them: read from a JSON file or from the `application/ld+json` scripts of a saved page
/// (or, when it has none, from its microdata or RDFa: `RecipeMicrodata`), and written for `recipes export`.
public enum RecipeJSONLD {
    /// The recipes in a file's bytes: JSON-LD (an object, an array, an `@graph`, a page's `mainEntity`) or an HTML
    /// page whose `<script type="application/ld+json">` elements hold it, else whose microdata or RDFa does. Throws
    /// when the file is neither, is malformed, holds no recipe, or holds a recipe without a name.
    public static func recipes(inFile data: Data) throws(ImportError) -> [ImportedRecipe] {
        var bytes = data
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        guard let text = String(data: bytes, encoding: .utf8) else {
            throw ImportError("not UTF-8 text; save it as UTF-8 JSON-LD or HTML")
        }
        let start = text.first { !$0.isWhitespace }
        if start == "{" || start == "[" { return try recipes(inJSON: text, fromHTML: false) }
        guard text.contains("<") else {
            throw ImportError("neither JSON nor an HTML page; give a schema.org Recipe in JSON-LD or a saved recipe page")
        }
        let scripts = scripts(inHTML: text)
        var found: [ImportedRecipe] = []
        var scriptError: ImportError?
        for (index, script) in scripts.enumerated() {
            do {
                found += try recipes(inJSON: script, fromHTML: true, requireRecipe: false)
            } catch {
                scriptError = ImportError("JSON-LD script \(index + 1) of \(scripts.count): \(error.message)")
                break
            }
        }
        if let scriptError, !found.isEmpty { throw scriptError }
        if !found.isEmpty { return found }
        // No recipe in JSON-LD: the page's markup may hold one (a script that could not be read is told when it
        // does not).
        found = try markupRecipes(inHTML: text)
        if !found.isEmpty { return found }
        throw scriptError ?? noRecipeOnPage
    }

    static let noRecipe = ImportError(
        "no schema.org Recipe in it (no \"@type\": \"Recipe\" in its JSON-LD); give a recipe's own page or export")

    static let noRecipeOnPage = ImportError(
        "no schema.org Recipe found: looked for JSON-LD <script type=application/ld+json>, microdata "
            + "itemtype=https://schema.org/Recipe and RDFa typeof=Recipe; give the recipe's own page, or export it as JSON-LD")

    /// The recipes of one JSON-LD text, each with its properties as written (see `ReceivedProperties`).
    static func recipes(inJSON text: String, fromHTML: Bool, requireRecipe: Bool = true) throws(ImportError) -> [ImportedRecipe] {
        let escaped = escapingRawControls(text)
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: Data(escaped.utf8), options: .fragmentsAllowed)
        } catch {
            let depth = nestingDepth(escaped)
            if depth > readableDepth {
                throw ImportError(
                    "its JSON nests lists and objects \(depth) deep, more than the \(readableDepth) levels it can be read to "
                        + "(a recipe needs a handful); check that the file is the recipe you meant")
            }
            throw ImportError("malformed JSON (\(describe(error))); check the file")
        }
        var nodes: [[String: Any]] = []
        collectRecipes(json, into: &nodes, depth: 0)
        if nodes.isEmpty {
            if requireRecipe { throw noRecipe }
            return []
        }
        // The nodes as written, found by the same walk; when the walk finds them otherwise (a key given twice, say),
        // their properties are kept as the parser read them.
        let texts = recipeTexts(escaped).flatMap { $0.count == nodes.count ? $0 : nil }
        let graph = graphNodes(json, text: escaped)
        var recipes: [ImportedRecipe] = []
        for (index, node) in nodes.enumerated() {
            let node = following(node, in: graph.objects)
            let members = texts.flatMap { JSONScanner.members(of: $0[index]) }.map { following($0, in: graph.texts) }
                ?? node.map { ($0.key, reserialized($0.value)) }
            do {
                recipes.append(try recipe(node, decodeEntities: fromHTML, received: received(members, node: node)))
            } catch {
                let which = nodes.count == 1 ? "the recipe" : "recipe \(index + 1) of \(nodes.count)"
                throw ImportError("\(which): \(error.message)")
            }
        }
        return recipes
    }

    /// How deep Foundation's JSON parser reads nested lists and objects.
    static let readableDepth = 512

    /// How deep `text` nests JSON lists and objects (brackets inside strings left out), whether or not it is valid.
    static func nestingDepth(_ text: String) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in text.utf8 {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }

    /// A parsed value as compact JSON with sorted keys.
    static func reserialized(_ value: Any) -> String {
        let data = try? JSONSerialization.data(
            withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    /// JSONSerialization's complaint in a few words.
    private static func describe(_ error: any Error) -> String {
        let nsError = error as NSError
        let detail = nsError.userInfo[NSDebugDescriptionErrorKey] as? String ?? nsError.localizedDescription
        return detail.trimmingCharacters(in: CharacterSet(charactersIn: ". "))
    }

    /// `text` with raw line breaks and tabs inside JSON strings escaped: many pages write them, which JSON forbids.
    static func escapingRawControls(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var inString = false
        var escaped = false
        for scalar in text.unicodeScalars {
            if inString {
                if escaped {
                    escaped = false
                } else if scalar == "\\" {
                    escaped = true
                } else if scalar == "\"" {
                    inString = false
                } else if scalar.value < 0x20 {
                    let escape: String = scalar == "\n" ? "\\n" : scalar == "\r" ? "\\r" : scalar == "\t" ? "\\t"
                        : String(format: "\\u%04x", scalar.value)
                    out.append(contentsOf: escape.unicodeScalars)
                    continue
                }
            } else if scalar == "\"" {
                inString = true
            }
            out.append(scalar)
        }
        return String(out)
    }

    /// Finds `Recipe` nodes: the value itself, array elements, `@graph` members and a page's `mainEntity`.
    private static func collectRecipes(_ value: Any, into nodes: inout [[String: Any]], depth: Int) {
        guard depth < 8 else { return }
        if let array = value as? [Any] {
            for element in array { collectRecipes(element, into: &nodes, depth: depth + 1) }
        } else if let object = value as? [String: Any] {
            if hasType(object, "Recipe") {
                nodes.append(object)
                return
            }
            for key in ["@graph", "mainEntity", "mainEntityOfPage"] {
                if let inner = object[key] { collectRecipes(inner, into: &nodes, depth: depth + 1) }
            }
        }
    }

    /// Whether `object`'s `@type` (a string or a list) names `type`, also as `schema:Recipe` or a full IRI.
    static func hasType(_ object: [String: Any], _ type: String) -> Bool {
        let types: [String]
        if let single = object["@type"] as? String {
            types = [single]
        } else if let list = object["@type"] as? [Any] {
            types = list.compactMap { $0 as? String }
        } else {
            return false
        }
        return types.contains { name in
            let last = name.split(whereSeparator: { $0 == "/" || $0 == ":" || $0 == "#" }).last.map(String.init) ?? name
            return last == type
        }
    }
}
