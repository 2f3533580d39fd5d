import RecipeModels
import RecipeStore

/// The one line an edit prints where a person reads it (`added ingredient 3 to Lasagne`): on a terminal, in the
/// REPL at a terminal, or with `--verbose`; a script's pipe gets nothing (the exit status says it worked).
///
/// A pure function of the change and the recipe after it, so every wording is tested from a table.
enum EditReceipt {
    /// The line (with its newline) for `change`, applied so that the recipe now is `recipe`.
    static func line(for change: RecipeChange, after recipe: Recipe) -> String {
        let title = TerminalText.clean(recipe.title)
        return text(for: change, title: title, ingredients: recipe.ingredients.count, steps: recipe.steps.count) + "\n"
    }

    /// The line of `image set` (whose change holds a staged copy, which the REPL makes itself).
    static func imageAttached(to recipe: Recipe) -> String {
        "attached the image to \(TerminalText.clean(recipe.title))\n"
    }

    /// The line without its newline; `ingredients` and `steps` are the recipe's counts after the change.
    static func text(for change: RecipeChange, title: String, ingredients: Int, steps: Int) -> String {
        func set(_ what: String, _ value: String) -> String {
            value.isEmpty ? "cleared the \(what) of \(title)" : "set the \(what) of \(title) to \(TerminalText.clean(value))"
        }
        switch change {
        case .title: return "renamed the recipe to \(title)"
        case .description(let text): return text.isEmpty ? "cleared the description of \(title)" : "set the description of \(title)"
        case .yield(let text): return set("yield", text)
        case .keywords(let text): return set("keywords", text)
        case .addIngredient: return "added ingredient \(ingredients) to \(title)"
        case .removeIngredient(let n): return "removed ingredient \(n) from \(title)"
        case .setIngredient(let n, _): return "replaced ingredient \(n) of \(title)"
        case .insertIngredient(let n, _): return "inserted ingredient \(n) into \(title)"
        case .moveIngredient(let from, let to): return "moved ingredient \(from) of \(title) to \(to)"
        case .addStep: return "added step \(steps) to \(title)"
        case .removeStep(let n): return "removed step \(n) from \(title)"
        case .setStep(let n, _): return "replaced step \(n) of \(title)"
        case .insertStep(let n, _): return "inserted step \(n) into \(title)"
        case .moveStep(let from, let to): return "moved step \(from) of \(title) to \(to)"
        case .setImage: return "attached the image to \(title)"
        case .clearImage: return "removed the image from \(title)"
        case .detail(let detail, let value):
            return set(Self.name(of: detail), value.isEmpty ? "" : Self.shown(detail, value))
        case .detailList(let list, let values):
            let names = list == .suitableForDiet ? values.map(DietName.display) : values
            return set(Self.name(of: list), names.joined(separator: ", "))
        case .nutrition(let key, let value):
            let label = NutritionName.label(key)
            let name = TerminalText.clean(label.prefix(1).lowercased() + label.dropFirst())
            return value.isEmpty ? "removed \(name) from \(title)" : "set \(name) of \(title) to \(TerminalText.clean(value))"
        case .stepSection(let from, let to, let name):
            let steps = from == to ? "step \(from)" : "steps \(from)-\(to)"
            return name.isEmpty ? "took \(steps) of \(title) out of their section"
                : "put \(steps) of \(title) in the section \(TerminalText.clean(name))"
        }
    }

    /// A time as `show` writes it (`1h 30m`), any other detail as it is.
    static func shown(_ detail: DetailText, _ value: String) -> String {
        switch detail {
        case .prepTime, .cookTime, .totalTime: RecipeDuration.display(value)
        case .author, .url: value
        }
    }

    static func name(of detail: DetailText) -> String {
        switch detail {
        case .prepTime: "prep time"
        case .cookTime: "cook time"
        case .totalTime: "total time"
        case .author: "author"
        case .url: "page"
        }
    }

    static func name(of list: DetailList) -> String {
        switch list {
        case .recipeCategory: "categories"
        case .recipeCuisine: "cuisines"
        case .tool: "tools"
        case .suitableForDiet: "diets"
        }
    }
}
