import ArgumentParser
import Foundation
import RecipeModels

/// `recipes show <id> [--servings N | --scale F] [--units metric|us] [--details]`: one recipe as a cook reads it
/// (every field, its image and where it stands with the server in a line), or with `--details` every field under its
/// name with the whole sync state; its quantities scaled and its measures converted when asked.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show a recipe as a cook reads it; --details adds its whole sync state.",
        discussion: ScaleOptions.discussion)

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print one JSON object.") var json = false
    @Flag(name: .long, help: "Every field under its name, the image's hash and path, and the whole sync state.")
    var details = false
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
                : details ? formatter.details(recipe, scale: factor, units: units)
                : formatter.show(recipe, scale: factor, units: units))
        }
    }
}
