import Foundation
import RecipeModels

/// The whole schema.org recipe as `recipes` holds it (`RecipeFields`) and a Mealie 2.x recipe, both ways, as pure
/// functions (tested from tables in `MealieMappingTests`; docs/mealie.md, "The mapping").
///
/// | `recipes` (schema.org) | Mealie |
/// | --- | --- |
/// | `title` | `name` (with `slug` beside it in a write, or the recipe wedges); a name Mealie chose when the title was taken, the title beside it in `extras` |
/// | `description`, `recipeYield` | `description`, `recipeYield` |
/// | `keywords` (comma-separated) | `tags[].name` (created when missing) |
/// | `recipeCategory`, `tool` | `recipeCategory[].name`, `tools[].name` (created when missing) |
/// | `prepTime`, `cookTime`, `totalTime` | `prepTime`, `performTime` (the web app's cook time), `totalTime`, as Mealie writes times (`1 hour 30 minutes`) |
/// | `nutrition` | `nutrition` (its eleven properties); the others (`servingSize`) in `extras` |
/// | `url` | `orgURL` |
/// | `ingredients` | `recipeIngredient[]`: `note` (`display` for an ingredient Mealie parsed) |
/// | `steps` with their sections | `recipeInstructions[]`: `text`; a `title` starts a section |
/// | `recipeCuisine`, `author`, `suitableForDiet`, other properties | `extras` under `recipes.…` keys |
/// | `image` | uploaded apart (`ImageIdentity`); never in a write of fields |
///
/// What Mealie holds that `recipes` does not model (ratings, notes, settings, assets, comments, Mealie's own extras,
/// the ids, `summary` and references of each element, an ingredient's parsed amount) is never in a write unless the
/// list it belongs to changed, and then each element kept is sent back whole.
public enum MealieMapping {
    /// The prefix of the `extras` keys that carry the schema.org properties Mealie has no field for.
    public static let extrasPrefix = "recipes."

    /// Mealie's nutrition properties (the schema.org `NutritionInformation` ones it has a field for).
    public static let nutritionKeys = [
        "calories", "carbohydrateContent", "cholesterolContent", "fatContent", "fiberContent", "proteinContent",
        "saturatedFatContent", "sodiumContent", "sugarContent", "transFatContent", "unsaturatedFatContent",
    ]

    /// The recipe's key of each kind of organizer.
    public static func recipeKey(_ kind: OrganizerKind) -> String {
        switch kind {
        case .tags: "tags"
        case .categories: "recipeCategory"
        case .tools: "tools"
        }
    }

    /// The fields of Mealie's `recipe` (a whole recipe as `GET /api/recipes/{id}` answers it). The image is not
    /// among them: it is identified by the bytes Mealie serves (`ImageIdentity`), so the caller sets it.
    public static func fields(of recipe: [String: MealieJSON]) -> RecipeFields {
        let extras = recipe["extras"]?.members ?? [:]
        func ours(_ key: String) -> String? { extras[extrasPrefix + key].map(\.text) }
        let time = { (key: String) in MealieDuration.stored(recipe[key]?.text ?? "") }
        var details = RecipeDetails(
            prepTime: time("prepTime"), cookTime: time("performTime"), totalTime: time("totalTime"),
            recipeCategory: ordered(names(recipe[recipeKey(.categories)]), ours(orderKey(.categories))), recipeCuisine: ours("recipeCuisine").map(textList) ?? [],
            author: ours("author") ?? "", url: recipe["orgURL"]?.text ?? "", nutrition: [:],
            tool: ordered(names(recipe[recipeKey(.tools)]), ours(orderKey(.tools))), suitableForDiet: ours("suitableForDiet").map(textList) ?? [])
        for key in nutritionKeys {
            if let value = recipe["nutrition"]?[key]?.text, !value.isEmpty { details.nutrition[key] = value }
        }
        var other: [String: String] = [:]
        for (key, value) in extras {
            if let property = key.dropPrefix(extrasPrefix + "nutrition.") {
                details.nutrition[property] = value.text
            } else if let property = key.dropPrefix(extrasPrefix + "other.") {
                other[property] = value.text
            }
        }
        return RecipeFields(
            title: title(of: recipe), description: recipe["description"]?.text ?? "",
            recipeYield: recipe["recipeYield"]?.text ?? "", keywords: ordered(names(recipe[recipeKey(.tags)]), ours(orderKey(.tags))).joined(separator: ","),
            ingredients: (recipe["recipeIngredient"]?.elements ?? []).map(ingredientText),
            steps: steps(recipe["recipeInstructions"]?.elements ?? []), details: details,
            received: ReceivedProperties(other: other))
    }

    /// An ingredient's text: its `note`, or for an ingredient Mealie parsed into an amount, unit and food
    /// (`disableAmount` false) the `display` it shows (its `note` when that is empty).
    static func ingredientText(_ ingredient: MealieJSON) -> String {
        let note = ingredient["note"]?.text ?? ""
        guard ingredient["disableAmount"] == .bool(false), let display = ingredient["display"]?.text, !display.isEmpty else {
            return note
        }
        return display
    }

    /// The steps of Mealie's instructions: a step whose `title` is not empty starts a section of that name, which the
    /// following steps without a title are in.
    static func steps(_ instructions: [MealieJSON]) -> [Step] {
        var section = ""
        return instructions.map { instruction in
            let title = instruction["title"]?.text.trimmingCharacters(in: .whitespaces) ?? ""
            if !title.isEmpty { section = title }
            return Step(text: instruction["text"]?.text ?? "", section: section)
        }
    }

    /// The `name` of each organizer in a recipe's list, in order, empty names left out.
    static func names(_ list: MealieJSON?) -> [String] {
        (list?.elements ?? []).map { $0["name"]?.text ?? "" }.filter { !$0.isEmpty }
    }

    /// The `extras` key (after the prefix) of the order of a recipe's tags, categories or tools: Mealie lists them in
    /// an order of its own (not the one sent), so the order `recipes` gave them is kept beside them.
    static func orderKey(_ kind: OrganizerKind) -> String { "order." + recipeKey(kind) }

    /// `names` as Mealie lists them, in the order `hint` (an `extras` value) gives them; names the hint lacks (added in
    /// Mealie's web app) follow in Mealie's order, names only the hint has (removed there) are left out.
    static func ordered(_ names: [String], _ hint: String?) -> [String] {
        guard let hint else { return names }
        var remaining = names
        var result: [String] = []
        for name in textList(hint) {
            if let index = remaining.firstIndex(of: name) { result.append(remaining.remove(at: index)) }
        }
        return result + remaining
    }

    /// A list kept in an `extras` value as a JSON array of texts; a value that is not one is a list of that one text.
    static func textList(_ text: String) -> [String] {
        if let list = try? JSONDecoder().decode([String].self, from: Data(text.utf8)) { return list }
        return text.isEmpty ? [] : [text]
    }

    /// A list as an `extras` value: a JSON array of texts.
    static func textListValue(_ list: [String]) -> String {
        String(decoding: MealieJSON.array(list.map(MealieJSON.string)).data(), as: UTF8.self)
    }
}

extension String {
    /// The rest of the text after `prefix`, nil when it does not start with it.
    func dropPrefix(_ prefix: String) -> String? {
        hasPrefix(prefix) ? String(dropFirst(prefix.count)) : nil
    }
}
