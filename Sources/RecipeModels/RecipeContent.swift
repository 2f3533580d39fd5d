/// What a cook writes in a recipe — title, description, yield, keywords, ingredients, steps and the details (times,
/// category, cuisine, author, url, nutrition, tools, diets) — without the image, the properties kept as they came and
/// the sync bookkeeping: what `recipes edit <id>` shows in the editor and what an import brings in.
public struct RecipeContent: Sendable, Equatable, Hashable {
    /// The recipe's name.
    public var title: String
    /// Free text describing the dish; empty when unset.
    public var description: String
    /// How much it makes, e.g. "4 servings"; empty when unset.
    public var recipeYield: String
    /// Comma-separated keywords; empty when unset.
    public var keywords: String
    /// The ingredients, in order.
    public var ingredients: [String]
    /// The instruction steps, in order, each with its section's name.
    public var steps: [Step]
    /// Times, category, cuisine, author, url, nutrition, tools and diets.
    public var details: RecipeDetails

    /// Creates recipe content.
    public init(
        title: String, description: String = "", recipeYield: String = "", keywords: String = "",
        ingredients: [String] = [], steps: [Step] = [], details: RecipeDetails = RecipeDetails()
    ) {
        self.title = title
        self.description = description
        self.recipeYield = recipeYield
        self.keywords = keywords
        self.ingredients = ingredients
        self.steps = steps
        self.details = details
    }

    /// The content of `recipe`.
    public init(_ recipe: Recipe) {
        self.init(
            title: recipe.title, description: recipe.description, recipeYield: recipe.recipeYield,
            keywords: recipe.keywords, ingredients: recipe.ingredients.map(\.text), steps: recipe.steps,
            details: recipe.details)
    }

    /// Keywords as the store keeps them: entries separated by commas, blanks around them and empty entries dropped.
    public static func normalizeKeywords(_ text: String) -> String {
        text.split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: ",")
    }
}
