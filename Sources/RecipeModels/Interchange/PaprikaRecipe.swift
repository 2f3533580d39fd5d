import Foundation

/// One recipe of Paprika's export (a `.paprikarecipe`, once unpacked: a JSON object), read into the object a
/// schema.org JSON-LD page would have held for it and then read as one, so that every field's rules stay in one place.
///
/// `name`, `description`, `ingredients` (one per line), `directions` (one step per line; blank lines between them left
/// out), `servings`, `prep_time`, `cook_time` and `total_time` (`15 mins`, `1 hr 20 min`: kept as ISO 8601 durations
/// when they read as times, else as written), `source` (the author or book), `source_url`, `categories`,
/// `nutritional_info` (lines such as `Calories: 240` by schema.org's names; any other line keeps the text whole in the
/// `paprika` property) and `notes` (after the description, as "Notes: …"); the photo is `photo_data` (base64), else the
/// first of `photos`, else `image_url`. Paprika's own `uid`, `created`, `hash`, `rating` and `difficulty` are kept in
/// one `paprika` property (sent back unchanged like any other), and `uid` says which recipe an archive imported again
/// updates. Empty fields are left out.
public enum PaprikaRecipe {
    /// The recipe in the JSON text of one `.paprikarecipe`; throws when it is not a JSON object, has no name, or has a
    /// photo that is not base64.
    public static func recipe(inJSON data: Data) throws(ImportError) -> ImportedRecipe {
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw ImportError("not a Paprika recipe (its JSON is malformed); export it from Paprika again")
        }
        guard let object = parsed as? [String: Any] else {
            throw ImportError("not a Paprika recipe (its JSON is not an object); export it from Paprika again")
        }
        let node = schemaNode(object)
        var imported: ImportedRecipe
        do {
            imported = try RecipeJSONLD.recipe(node, decodeEntities: false, received: RecipeJSONLD.received(node: node))
        } catch {
            throw ImportError(error.message.replacingOccurrences(of: "(schema.org \"name\")", with: "(Paprika's \"name\")"))
        }
        imported.image = try image(object)
        imported.paprikaUID = string(object["uid"])
        return imported
    }

    /// The JSON-LD object that stands for a Paprika recipe.
    static func schemaNode(_ object: [String: Any]) -> [String: Any] {
        var node: [String: Any] = ["@type": "Recipe"]
        func put(_ key: String, _ value: String?) {
            if let value, !value.isEmpty { node[key] = value }
        }
        put("name", string(object["name"]))
        let notes = string(object["notes"]).map { "Notes: " + $0 }
        let description = [string(object["description"]), notes].compactMap { $0 }.joined(separator: "\n\n")
        put("description", description)
        if let ingredients = string(object["ingredients"]) { node["recipeIngredient"] = lines(ingredients) }
        if let directions = string(object["directions"]) { node["recipeInstructions"] = lines(directions) }
        put("recipeYield", string(object["servings"]))
        for (paprika, schema) in [("prep_time", "prepTime"), ("cook_time", "cookTime"), ("total_time", "totalTime")] {
            put(schema, string(object[paprika]).map { (try? RecipeDuration.stored($0)) ?? $0 })
        }
        put("author", string(object["source"]))
        put("url", string(object["source_url"]))
        let categories = (object["categories"] as? [Any] ?? []).compactMap { string($0) }
        if !categories.isEmpty { node["recipeCategory"] = categories }
        var own: [String: Any] = [:]
        for key in ["uid", "created", "hash", "difficulty"] {
            if let value = string(object[key]) { own[key] = value }
        }
        if let rating = object["rating"] as? NSNumber, rating.intValue > 0 { own["rating"] = rating.intValue }
        if let info = string(object["nutritional_info"]) {
            let (facts, whole) = nutrition(info)
            if !facts.isEmpty { node["nutrition"] = facts.merging(["@type": "NutritionInformation"]) { $1 } }
            if !whole { own["nutritional_info"] = info }
        }
        if !own.isEmpty { node["paprika"] = own }
        return node
    }

    /// A field's text, trimmed; nil when missing, not text or a number, or empty.
    static func string(_ value: Any?) -> String? {
        let text: String? = switch value {
        case let string as String: string
        case let number as NSNumber: RecipeJSONLD.numberText(number)
        default: nil
        }
        guard let trimmed = text?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return nil }
        return trimmed
    }

    /// The lines of a text, trimmed, empty ones left out.
    static func lines(_ text: String) -> [String] {
        text.components(separatedBy: .newlines).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The photo: `photo_data`, else the first of `photos` with data (both base64 JPEG), else `image_url` when it is a
    /// web address.
    static func image(_ object: [String: Any]) throws(ImportError) -> ImageSource? {
        let photos = (object["photos"] as? [Any] ?? []).compactMap { ($0 as? [String: Any]).flatMap { string($0["data"]) } }
        if let base64 = string(object["photo_data"]) ?? photos.first {
            guard let bytes = Data(base64Encoded: base64, options: .ignoreUnknownCharacters), !bytes.isEmpty else {
                throw ImportError("its photo (photo_data) is not base64; export it from Paprika again")
            }
            return .embedded(bytes)
        }
        if let url = string(object["image_url"]), case .remote(let address)? = RecipeJSONLD.image(url) {
            return .remote(url: address)
        }
        return nil
    }

    /// Paprika's nutrition lines (`Calories: 240`, `Fat: 9 g`, `Total Carbohydrates 30g`) by schema.org's
    /// `NutritionInformation` names, and whether every line was one of them.
    static func nutrition(_ text: String) -> (facts: [String: String], whole: Bool) {
        var facts: [String: String] = [:]
        var whole = true
        for line in lines(text) {
            let lowered = line.lowercased()
            let match = nutritionNames.first { name, _ in
                lowered.hasPrefix(name) && lowered.dropFirst(name.count).first.map { $0 == ":" || $0 == " " } == true
            }
            guard let (name, key) = match else {
                whole = false
                continue
            }
            let value = line.dropFirst(name.count).drop { $0 == ":" || $0.isWhitespace }
            guard !value.isEmpty, facts[key] == nil else {
                whole = false
                continue
            }
            facts[key] = String(value)
        }
        return (facts, whole)
    }

    /// Names as Paprika users write them, longest first (so "saturated fat" is not read as "fat"), and schema.org's.
    static let nutritionNames: [(String, String)] = [
        ("total carbohydrates", "carbohydrateContent"), ("unsaturated fat", "unsaturatedFatContent"),
        ("carbohydrates", "carbohydrateContent"), ("dietary fiber", "fiberContent"), ("saturated fat", "saturatedFatContent"),
        ("serving size", "servingSize"), ("cholesterol", "cholesterolContent"), ("trans fat", "transFatContent"),
        ("total fat", "fatContent"), ("calories", "calories"), ("protein", "proteinContent"), ("sodium", "sodiumContent"),
        ("sugars", "sugarContent"), ("carbs", "carbohydrateContent"), ("fiber", "fiberContent"), ("fibre", "fiberContent"),
        ("sugar", "sugarContent"), ("fat", "fatContent"),
    ]
}
