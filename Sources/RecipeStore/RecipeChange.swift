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
}

/// What an edit came to (`RecipeStore.edit(_:of:)`).
public struct EditOutcome: Sendable, Equatable {
    /// The recipe as it is after the edit.
    public var recipe: Recipe
    /// Whether anything changed: false when every field already was as the edit would set it (no revision then).
    public var changed: Bool
}
