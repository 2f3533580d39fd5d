import Foundation

extension RecipeJSONLD {
    /// The schema.org `Recipe` object `recipes export` writes for `content`: `name`, `description`, `recipeYield`,
    /// `keywords`, `recipeIngredient`, `recipeInstructions` as `HowToStep`s, and `identifier`, `dateModified` and
    /// `image` when given (what `recipes import` reads back into the same content).
    public static func object(
        _ content: RecipeContent, identifier: String? = nil, dateModified: String? = nil, image: String? = nil
    ) -> [String: Any] {
        var object: [String: Any] = [
            "@context": "https://schema.org", "@type": "Recipe", "name": content.title,
            "description": content.description, "recipeYield": content.recipeYield, "keywords": content.keywords,
            "recipeIngredient": content.ingredients,
            "recipeInstructions": content.steps.map { ["@type": "HowToStep", "text": $0] },
        ]
        if let identifier { object["identifier"] = identifier }
        if let dateModified { object["dateModified"] = dateModified }
        if let image { object["image"] = image }
        return object
    }

    /// `value` (an object or an array of them) as indented JSON with sorted keys and a final newline.
    public static func encode(_ value: Any) -> Data {
        guard var data = try? JSONSerialization.data(
            withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return Data("[]\n".utf8) }
        data.append(UInt8(ascii: "\n"))
        return data
    }
}
