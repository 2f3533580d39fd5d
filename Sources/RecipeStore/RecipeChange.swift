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
    /// Attaches a copy already staged in the media folder.
    case setImage(StagedImage)
    case clearImage
}
