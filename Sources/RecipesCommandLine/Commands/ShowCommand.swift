import ArgumentParser
import Foundation
import RecipeModels

/// `recipes show <id> [--servings N | --scale F] [--units metric|us]`: every field of one recipe, its quantities
/// scaled and its measures converted when asked.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show every field of a recipe, its image and its sync state.",
        discussion: ScaleOptions.discussion)

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print one JSON object.") var json = false
    @OptionGroup var scaling: ScaleOptions
    @Argument(help: ArgumentHelp(RecipeReference.argumentHelp), transform: RecipeReference.argument)
    var id: RecipeReference

    func run() throws {
        let context = CommandContext(homeOption: Self.homeOption(global, root))
        try context.reportingFailures {
            let store = try context.openStore(.readOnly)
            var formatter = RecipeFormatter(store: store, now: Date())
            (formatter.server, formatter.hasServer) = context.serverForText()
            let recipe = try store.recipe(id: store.recipeID(id))
            let factor = try scaling.request.map { request throws in try ScaleOptions.factor(request, of: recipe) }
            let units = scaling.units
            context.console.out(json ? formatter.showJSON(recipe, scale: factor, units: units)
                : formatter.show(recipe, scale: factor, units: units))
        }
    }
}
