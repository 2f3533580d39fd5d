/// The schema.org `Recipe` properties beyond name, description, yield, keywords, ingredients and steps that cooks and
/// recipe sites use (docs/http-api.md, "The recipe document"): times, category, cuisine, author, the page's address,
/// nutrition, tools and diets. Each is optional: empty text, an empty list or no nutrition means unset.
public struct RecipeDetails: Sendable, Hashable {
    /// `prepTime`: an ISO 8601 duration as written (`PT15M`); empty when unset.
    public var prepTime: String
    /// `cookTime`: an ISO 8601 duration as written; empty when unset.
    public var cookTime: String
    /// `totalTime`: an ISO 8601 duration as written; empty when unset.
    public var totalTime: String
    /// `recipeCategory`: e.g. "Soup", "Dessert".
    public var recipeCategory: [String]
    /// `recipeCuisine`: e.g. "Italian".
    public var recipeCuisine: [String]
    /// `author`: the name of the person or organisation; empty when unset.
    public var author: String
    /// `url`: the page the recipe came from; empty when unset.
    public var url: String
    /// `nutrition`: `NutritionInformation` properties (`calories`, `fatContent`, …) and their text.
    public var nutrition: [String: String]
    /// `tool`: what the cook needs besides ingredients, e.g. "Blender".
    public var tool: [String]
    /// `suitableForDiet`: schema.org diet URLs (`https://schema.org/VeganDiet`) or text.
    public var suitableForDiet: [String]

    /// Creates details; every property defaults to unset.
    public init(
        prepTime: String = "", cookTime: String = "", totalTime: String = "", recipeCategory: [String] = [],
        recipeCuisine: [String] = [], author: String = "", url: String = "", nutrition: [String: String] = [:],
        tool: [String] = [], suitableForDiet: [String] = []
    ) {
        self.prepTime = prepTime
        self.cookTime = cookTime
        self.totalTime = totalTime
        self.recipeCategory = recipeCategory
        self.recipeCuisine = recipeCuisine
        self.author = author
        self.url = url
        self.nutrition = nutrition
        self.tool = tool
        self.suitableForDiet = suitableForDiet
    }

    /// Whether every property is unset.
    public var isEmpty: Bool { self == RecipeDetails() }

    /// The time properties in recipe order, with the schema.org name of each.
    public static let timeKeys: [(key: String, path: any WritableKeyPath<RecipeDetails, String> & Sendable)] = [
        ("prepTime", \.prepTime), ("cookTime", \.cookTime), ("totalTime", \.totalTime),
    ]

    /// The list properties in recipe order, with the schema.org name of each.
    public static let listKeys: [(key: String, path: any WritableKeyPath<RecipeDetails, [String]> & Sendable)] = [
        ("recipeCategory", \.recipeCategory), ("recipeCuisine", \.recipeCuisine), ("tool", \.tool),
        ("suitableForDiet", \.suitableForDiet),
    ]
}

/// The properties of a recipe's JSON-LD that `recipes` keeps without reading them as fields: every property it does
/// not know, and how the document that last brought the recipe wrote the ones it does know.
///
/// Values are JSON texts exactly as they came (`{"@type":"AggregateRating","ratingValue":4.5}`), so that a push, an
/// export or a merge sends back the same bytes for every property nobody edited.
public struct ReceivedProperties: Sendable, Hashable {
    /// Every other property the recipe arrived with (from a pull, an import or a destination): key → JSON text.
    /// Merged per key like a field.
    public var other: [String: String]
    /// The JSON text of each property `recipes` reads as a field, as the document that last brought the recipe wrote
    /// it (nil: the recipe was made here). A writer uses a form while the field still reads the same from it, so a
    /// value nobody edited goes back in the shape it came in (an `author` `Person` with its `url`, a `recipeYield`
    /// list); an edited field is written in `recipes`' own shape.
    public var forms: [String: String]?

    /// Creates received properties; none by default.
    public init(other: [String: String] = [:], forms: [String: String]? = nil) {
        self.other = other
        self.forms = forms
    }
}
