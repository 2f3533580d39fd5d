import Foundation
import RecipeModels

extension MealieMapping {
    /// The document of the zip import that creates `fields` as Mealie recipe `id` (`RecipeArchive.zip`): everything
    /// the import can carry — name, description, yield, times, source page, ingredients, steps with their sections,
    /// nutrition, tags and categories as `{name, slug}` (Mealie finds them by slug or creates them), and the tools
    /// `catalog` has (the import takes only existing tools). Not `extras` (the import writes the group's ids into
    /// them): what is left, the `recipes.…` extras and tools still to create, is the first write after the read-back,
    /// planned by `write(_:over:catalog:newID:)` on the recipe as created.
    public static func importDocument(_ fields: RecipeFields, id: UUID, tools catalog: [MealieOrganizer],
                                      newID: () -> UUID) -> MealieJSON {
        var document: [String: MealieJSON] = [
            "id": .string(id.uuidString.lowercased()), "name": .string(fields.title),
            "description": .string(fields.description),
        ]
        let details = fields.details
        let texts: [(String, String)] = [
            ("recipeYield", fields.recipeYield), ("prepTime", MealieDuration.written(details.prepTime)),
            ("performTime", MealieDuration.written(details.cookTime)), ("totalTime", MealieDuration.written(details.totalTime)),
            ("orgURL", details.url),
        ]
        for (key, value) in texts where !value.isEmpty { document[key] = .string(value) }
        let keywords = fields.keywords.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        document["tags"] = .array(uniqueBySlug(keywords).map { .object(["name": .string($0), "slug": .string(slug($0))]) })
        document["recipe_category"] = .array(uniqueBySlug(fields.details.recipeCategory).map {
            .object(["name": .string($0), "slug": .string(slug($0))])
        })
        document["tools"] = .array(fields.details.tool.compactMap { organizer(named: $0, in: [], catalog: catalog) })
        // Mealie adds a sample ingredient ("1 Cup Flour") and a sample step to a recipe imported without any, even when
        // the lists are sent empty: the write after the read-back empties them again.
        document["recipeIngredient"] = .array(ingredients(fields.ingredients, reusing: [], newID: newID))
        document["recipeInstructions"] = .array(instructions(fields.steps, reusing: [], newID: newID))
        if let nutrition = nutrition(fields.details.nutrition, over: nil) { document["nutrition"] = nutrition }
        return .object(document)
    }

    /// `names` without those whose slug an earlier one has (Mealie's slugs are unique in a group).
    private static func uniqueBySlug(_ names: [String]) -> [String] {
        var seen: Set<String> = []
        return names.filter { seen.insert(slug($0)).inserted }
    }
}
