import ArgumentParser
import Foundation

/// `recipes list`: one row per recipe: id, state, title, and on a pipe (what scripts read) the revision too.
struct ListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List recipes: id, state, title (and the revision, on a pipe or with --details).")

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print a JSON array of {id, uuid, title, state, revision}.") var json = false
    @Flag(name: .long, help: "Show the revision column on a terminal too (a pipe always has it).") var details = false

    func run() throws {
        let context = CommandContext(homeOption: Self.homeOption(global, root))
        try context.reportingFailures {
            let store = try context.openStore(.readOnly)
            let formatter = RecipeFormatter(store: store, now: Date())
            let recipes = try store.recipes()
            context.console.out(json ? formatter.listJSON(recipes) : formatter.list(recipes, revisions: details || isatty(STDOUT_FILENO) != 1))
        }
    }
}
