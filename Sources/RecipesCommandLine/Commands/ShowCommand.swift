import ArgumentParser
import Foundation
import RecipeModels

/// `recipes show <id>`: every field of one recipe.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show every field of a recipe, its image and its sync state.")

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print one JSON object.") var json = false
    @Argument(help: ArgumentHelp(RecipeReference.argumentHelp), transform: RecipeReference.argument)
    var id: RecipeReference

    func run() throws {
        let context = CommandContext(homeOption: Self.homeOption(global, root))
        try context.reportingFailures {
            let store = try context.openStore(.readOnly)
            let formatter = RecipeFormatter(store: store, now: Date())
            let recipe = try store.recipe(id: store.recipeID(id))
            context.console.out(json ? formatter.showJSON(recipe) : formatter.show(recipe))
        }
    }
}
