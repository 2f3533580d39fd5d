import RecipeModels

/// One edit of a recipe, as the REPL's commands express it; applied by `RecipeStore.apply(_:to:)`.
public enum RecipeChange: Sendable, Equatable {
    case title(String)
    case description(String)
    case yield(String)
    case keywords(String)
    case addIngredient(String)
    /// Removes the n-th ingredient, 1-based.
    case removeIngredient(Int)
    case addStep(String)
    /// Removes the n-th step, 1-based.
    case removeStep(Int)
    /// Replaces the text of the n-th ingredient, 1-based.
    case setIngredient(Int, String)
    /// Inserts an ingredient so that it becomes the n-th (1 to count + 1).
    case insertIngredient(Int, String)
    /// Moves the ingredient at position `from` so that it becomes the `to`-th, the others keeping their order.
    case moveIngredient(from: Int, to: Int)
    /// Replaces the text of the n-th step, 1-based.
    case setStep(Int, String)
    /// Inserts a step so that it becomes the n-th (1 to count + 1).
    case insertStep(Int, String)
    /// Moves the step at position `from` so that it becomes the `to`-th, the others keeping their order.
    case moveStep(from: Int, to: Int)
    /// Attaches a copy already staged in the media folder.
    case setImage(StagedImage)
    case clearImage
    /// Sets a time, the author or the url (`""` clears); a time as `RecipeDuration.stored` keeps it.
    case detail(DetailText, String)
    /// Sets the category, cuisine, tools or diets (an empty list clears).
    case detailList(DetailList, [String])
    /// Sets one nutrition property (`""` removes it).
    case nutrition(key: String, value: String)
    /// Puts the steps `from` to `to` (1-based, inclusive) in the section `name` (`""`: in none).
    case stepSection(from: Int, to: Int, name: String)
}

/// A one-line detail of a recipe that a change sets.
public enum DetailText: String, Sendable, Equatable, CaseIterable {
    case prepTime, cookTime, totalTime, author, url

    /// Where the store keeps it.
    var column: String {
        switch self {
        case .prepTime: "prep_time"
        case .cookTime: "cook_time"
        case .totalTime: "total_time"
        case .author: "author"
        case .url: "url"
        }
    }

    /// The text field its text is checked as.
    var textField: TextField {
        switch self {
        case .prepTime: .preptime
        case .cookTime: .cooktime
        case .totalTime: .totaltime
        case .author: .author
        case .url: .url
        }
    }
}

/// A list detail of a recipe that a change sets.
public enum DetailList: String, Sendable, Equatable, CaseIterable {
    case recipeCategory, recipeCuisine, tool, suitableForDiet

    /// Where the store keeps it.
    var column: String {
        switch self {
        case .recipeCategory: "recipe_category"
        case .recipeCuisine: "recipe_cuisine"
        case .tool: "tool"
        case .suitableForDiet: "suitable_for_diet"
        }
    }

    /// The text field its entries are checked as.
    var textField: TextField {
        switch self {
        case .recipeCategory: .category
        case .recipeCuisine: .cuisine
        case .tool: .tools
        case .suitableForDiet: .diets
        }
    }
}

/// What an edit came to (`RecipeStore.edit(_:of:)`).
public struct EditOutcome: Sendable, Equatable {
    /// The recipe as it is after the edit.
    public var recipe: Recipe
    /// Whether anything changed: false when every field already was as the edit would set it (no revision then).
    public var changed: Bool
}
