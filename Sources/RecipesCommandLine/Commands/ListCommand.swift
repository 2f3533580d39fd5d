import ArgumentParser
import Foundation

/// `recipes list`: one row per recipe.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List recipes: id, state, revision, title.")

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print a JSON array of {id, uuid, title, state, revision}.") var json = false

    func run() throws {
        let context = CommandContext(homeOption: Self.homeOption(global, root))
        try context.reportingFailures {
            let store = try context.openStore(.readOnly)
            let formatter = RecipeFormatter(store: store, now: Date())
            let recipes = try store.recipes()
            context.console.out(json ? formatter.listJSON(recipes) : formatter.list(recipes))
        }
    }
}
