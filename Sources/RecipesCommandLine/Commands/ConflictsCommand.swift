import ArgumentParser
import Foundation

/// `recipes conflicts`: the recipes in conflict with the server, with both values of each conflicting field.
struct ConflictsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conflicts",
        abstract: "List the recipes in conflict with the server, with your value and the server's for each field.",
        discussion: "Exit status 0, also when there are none (`no conflicts`). `recipes resolve` settles them.")

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print a JSON array of {id, uuid, title, summary, conflicts: [{field, mine, theirs}]}.")
    var json = false

    func run() throws {
        let context = CommandContext(homeOption: Self.homeOption(global, root))
        try context.reportingFailures {
            let store = try context.openStore(.readOnly)
            let recipes = try store.recipes()
            context.console.out(json ? ConflictText.listingJSON(recipes) : ConflictText.listing(recipes))
        }
    }
}
