import ArgumentParser
import Foundation
import RecipeModels
import RecipeStore

/// `recipes resolve <id> --mine | --theirs [--field NAME]...`: settles a recipe's conflict with the server, all of it
/// or the fields named.
struct ResolveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resolve",
        abstract: "Settle a recipe's conflict with the server: keep your values (--mine) or take the server's (--theirs).",
        discussion: "Without --field every conflict of the recipe is settled; --field NAME (repeatable) settles only "
            + "that one: title, description, yield, keywords, image, ingredients, steps (every place of that list), or "
            + "\"ingredient N\" / \"step N\" as `recipes conflicts` names them. The chosen values become the draft: with "
            + "conflicts left the recipe stays in conflict, else it is pending and the next `recipes sync` sends it (or it "
            + "is synced at once when it now equals the server's copy). Editing a conflicting field settles it too.\n\n"
            + "A recipe deleted on the server: --mine re-creates it there, --theirs removes it here. A recipe deleted "
            + "here: --mine sends the deletion, --theirs restores the server's copy.\n\n"
            + "Exit status: 0 resolved; 1 nothing changed (unknown id, no conflict, a field not in conflict, a sync of "
            + "the recipe running); 64 usage error.")

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Keep this device's values.") var mine = false
    @Flag(name: .long, help: "Take the server's values.") var theirs = false
    @Option(name: .long, help: ArgumentHelp("Settle only this field (repeatable), e.g. title or \"ingredient 3\".", valueName: "NAME"))
    var field: [String] = []
    @Argument(help: ArgumentHelp(RecipeReference.argumentHelp), transform: RecipeReference.argument)
    var id: RecipeReference

    func validate() throws {
        if mine == theirs {
            throw ValidationError(mine
                ? "choose one side: --mine or --theirs, not both"
                : "choose a side: --mine keeps your values, --theirs takes the server's")
        }
        if field.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw ValidationError("--field needs a field name, e.g. --field title or --field \"ingredient 3\"")
        }
    }

    func run() throws {
        let context = CommandContext(homeOption: Self.homeOption(global, root))
        try context.reportingFailures {
            let store = try context.openStore()
            let resolved = try store.resolve(id: store.recipeID(id), side: mine ? .mine : .theirs, only: field)
            context.console.out(ConflictText.resolved(resolved) + "\n")
        }
    }
}
