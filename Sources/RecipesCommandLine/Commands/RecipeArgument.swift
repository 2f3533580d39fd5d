import ArgumentParser
import RecipeModels

extension RecipeReference {
    /// Reads a command-line argument naming a recipe (ArgumentParser's `transform:`), or says what it should be.
    static func argument(_ word: String) throws -> RecipeReference {
        guard let reference = RecipeReference(word) else {
            throw ValidationError(refusal(word))
        }
        return reference
    }

    /// The help of an argument naming one recipe.
    static let argumentHelp = "The recipe: its id as `recipes list` shows it, its title or the start of it (one "
        + "argument: quote a title of several words), or its uuid (or the start of it)."

    /// The help of an argument naming some recipes.
    static let argumentsHelp = "Only these recipes: ids as `recipes list` shows them, titles (or their starts, each "
        + "one argument), or uuids (or their starts)."
}
