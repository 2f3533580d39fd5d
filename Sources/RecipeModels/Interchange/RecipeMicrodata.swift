/// schema.org `Recipe`s written into a page's markup rather than a JSON-LD script: microdata (`itemscope
/// itemtype="https://schema.org/Recipe"` with `itemprop`s, as older blogs and recipe plugins write it) and RDFa
/// (`vocab="https://schema.org/" typeof="Recipe"` with `property`s).
///
/// Both are read the same way into the object the page's JSON-LD would have held, which the JSON-LD reader then
/// reads, so that every field's rules are in one place: an item's properties are the named elements inside it, a
/// nested item (`itemscope`, `typeof`) is the value of the property on its own element and its properties are its
/// own, and any other element's value is, in this order, its `content` attribute, the address or value its kind of
/// element holds (`src` of `img`, `audio`, `video`, `source`; `href` of `a`, `link`, `area`; `datetime` of `time`;
/// `value` of `data` and `meter`), else its text with blanks collapsed and each block on a line of its own.
enum RecipeMicrodata {
    /// How one syntax marks items and their properties.
    struct Syntax: Sendable {
        /// What the errors call it: "microdata", "RDFa".
        let name: String
        /// Whether an element starts an item (`itemscope`; `typeof`).
        let startsItem: @Sendable ([String: String]) -> Bool
        /// The types an element gives its item, as written (`itemtype`; `typeof`).
        let types: @Sendable ([String: String]) -> [String]
        /// The properties an element names (`itemprop`; `property`), as written.
        let properties: @Sendable ([String: String]) -> [String]
        /// The address an item element gives the thing it describes (`itemid`; `resource`, `src`, `href`): its `@id`
        /// (an image's address, for an `<img property="image" typeof="ImageObject" src="…">`).
        let identifier: @Sendable ([String: String]) -> String?
    }

    static let microdata = Syntax(
        name: "microdata",
        startsItem: { $0["itemscope"] != nil },
        types: { words($0["itemtype"]) },
        properties: { words($0["itemprop"]) },
        identifier: { $0["itemid"] })

    static let rdfa = Syntax(
        name: "RDFa",
        startsItem: { $0["typeof"] != nil },
        types: { words($0["typeof"]) },
        properties: { words($0["property"]) },
        identifier: { $0["resource"] ?? $0["src"] ?? $0["href"] })

    /// The `Recipe` items of a page's tree in one syntax, each as the JSON-LD object it stands for; an item inside
    /// another recipe's item is that recipe's, not one of its own.
    static func recipeNodes(in tree: HTMLTree, syntax: Syntax) -> [[String: Any]] {
        var nodes: [[String: Any]] = []
        var work = [0]
        while let index = work.popLast() {
            let attributes = tree.elements[index].attributes
            if syntax.startsItem(attributes), syntax.types(attributes).contains(where: { isSchemaType($0, "Recipe") }) {
                nodes.append(node(of: index, in: tree, syntax: syntax, depth: 0))
                continue
            }
            work += tree.childElements(of: index).reversed()
        }
        return nodes
    }

    /// How deep items nest inside a recipe before the inner ones are read as text (a recipe needs three: a section,
    /// its step, and the step's image).
    static let deepestItem = 12

    /// The item that element `index` starts, as a JSON-LD object: its `@type` and its properties, a property given
    /// several times as a list.
    static func node(of index: Int, in tree: HTMLTree, syntax: Syntax, depth: Int) -> [String: Any] {
        var order: [String] = []
        var values: [String: [Any]] = [:]
        var work = Array(tree.childElements(of: index).reversed())
        while let inner = work.popLast() {
            let attributes = tree.elements[inner].attributes
            let isItem = syntax.startsItem(attributes)
            let names = syntax.properties(attributes).map(propertyName).filter { !$0.isEmpty }
            if !names.isEmpty {
                let propertyValue: Any = isItem && depth < deepestItem
                    ? node(of: inner, in: tree, syntax: syntax, depth: depth + 1) : value(of: inner, in: tree)
                for name in names {
                    if values[name] == nil { order.append(name) }
                    values[name, default: []].append(propertyValue)
                }
            }
            // A nested item's properties are its own; any other element's inner elements are still this item's.
            if !isItem { work += tree.childElements(of: inner).reversed() }
        }
        var node: [String: Any] = [:]
        let types = syntax.types(tree.elements[index].attributes).map(typeName)
        if !types.isEmpty { node["@type"] = types.count == 1 ? types[0] : types }
        if let identifier = syntax.identifier(tree.elements[index].attributes), !identifier.isEmpty { node["@id"] = identifier }
        for name in order {
            let list = values[name] ?? []
            node[name] = list.count == 1 ? list[0] : list
        }
        // An item written around its text with no property for it (`<li itemprop="recipeInstructions" itemscope
        // itemtype="…/HowToStep">Whisk…</li>`, an `author` `Person` holding just the name): its text is that property.
        let own = Set(order)
        if types.contains(where: { ["HowToStep", "HowToDirection", "HowToTip"].contains($0) }),
           own.isDisjoint(with: ["text", "name", "description", "itemListElement"]) {
            node["text"] = tree.text(of: index)
        } else if types.contains(where: { ["Person", "Organization"].contains($0) }), !own.contains("name") {
            node["name"] = tree.text(of: index)
        }
        if node["itemListElement"] == nil, let steps = node["step"] { node["itemListElement"] = steps }
        return node
    }

    /// The value of a property's element that is not an item (see the type's comment).
    static func value(of index: Int, in tree: HTMLTree) -> String {
        let element = tree.elements[index]
        let attributes = element.attributes
        if let content = attributes["content"] { return content }
        let attribute: String? = switch element.name {
        case "img", "audio", "video", "source", "embed", "iframe", "track":
            // A lazily loaded image keeps its address in data-src while src holds a placeholder.
            attributes["src"].flatMap { $0.lowercased().hasPrefix("data:") ? nil : $0 }
                ?? attributes["data-src"] ?? attributes["data-lazy-src"] ?? attributes["src"]
        case "a", "link", "area": attributes["href"]
        case "object": attributes["data"]
        case "time": attributes["datetime"]
        case "data", "meter": attributes["value"]
        default: nil
        }
        return attribute ?? tree.text(of: index)
    }

    /// Whether `written` (an IRI such as `https://schema.org/Recipe`, `http://schema.org/Recipe`, a prefixed
    /// `schema:Recipe`, or RDFa's `Recipe` under a schema.org `vocab`) names schema.org's `type`.
    static func isSchemaType(_ written: String, _ type: String) -> Bool {
        guard typeName(written) == type else { return false }
        let lower = written.lowercased()
        if !lower.contains("/") { return true }  // `Recipe`, `schema:Recipe`
        for scheme in ["https://", "http://"] where lower.hasPrefix(scheme) {
            let host = lower.dropFirst(scheme.count).prefix { $0 != "/" }
            return host == "schema.org" || host == "www.schema.org"
        }
        return false
    }

    /// A type as JSON-LD names it under schema.org's context: the last part of its IRI or prefixed name.
    static func typeName(_ written: String) -> String {
        written.split(whereSeparator: { $0 == "/" || $0 == ":" || $0 == "#" }).last.map(String.init) ?? written
    }

    /// A property as JSON-LD names it: `name` for `name`, `https://schema.org/name` and `schema:name`.
    static func propertyName(_ written: String) -> String { typeName(written) }

    /// The words of an attribute's value, split at blanks.
    static func words(_ value: String?) -> [String] {
        value?.split(whereSeparator: { $0.isWhitespace }).map(String.init) ?? []
    }
}

extension RecipeJSONLD {
    /// The recipes a page writes in microdata, else in RDFa, each read as its JSON-LD would be; none when it writes
    /// neither. Throws when a recipe found cannot be imported (it has no name, say).
    static func markupRecipes(inHTML html: String) throws(ImportError) -> [ImportedRecipe] {
        let bytes = Array(html.utf8)
        guard HTMLScan.find("itemscope", in: bytes, from: 0) != nil || HTMLScan.find("typeof", in: bytes, from: 0) != nil
        else { return [] }
        let tree = HTMLTree(html: html)
        for syntax in [RecipeMicrodata.microdata, RecipeMicrodata.rdfa] {
            let nodes = RecipeMicrodata.recipeNodes(in: tree, syntax: syntax)
            guard !nodes.isEmpty else { continue }
            var recipes: [ImportedRecipe] = []
            for (index, node) in nodes.enumerated() {
                do {
                    recipes.append(try recipe(node, decodeEntities: false, received: received(node: node)))
                } catch {
                    let which = nodes.count == 1 ? "the recipe" : "recipe \(index + 1) of \(nodes.count)"
                    throw ImportError("\(syntax.name): \(which): \(error.message)")
                }
            }
            return recipes
        }
        return []
    }
}
