import ArgumentParser
import Foundation

/// `recipes show <id>`: every field of one recipe.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show every field of a recipe, its image and its sync state.")

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print one JSON object.") var json = false
    @Argument(help: "The recipe's id, as `recipes list` shows it.") var id: Int64

    func validate() throws {
        guard id >= 1 else { throw ValidationError("\(id) is not a recipe id; ids are the numbers `recipes list` shows") }
    }

    func run() throws {
        let context = CommandContext(homeOption: Self.homeOption(global, root))
        try context.reportingFailures {
            let store = try context.openStore(.readOnly)
            let formatter = RecipeFormatter(store: store, now: Date())
            let recipe = try store.recipe(id: id)
            context.console.out(json ? formatter.showJSON(recipe) : formatter.show(recipe))
        }
    }
}
