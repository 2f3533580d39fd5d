import ArgumentParser
import Foundation

/// `recipes status [<id>...]`: where each recipe stands with the server.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show where each recipe stands with the server and why it is not there yet.")

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print a JSON array with the keys id, uuid, title, state, revision, syncedRevision, attempts, nextAttemptAt, lastError, blocked, image, remoteImage.")
    var json = false
    @Argument(help: "Only these recipes (ids as `recipes list` shows them).") var ids: [Int64] = []

    func validate() throws {
        if let bad = ids.first(where: { $0 < 1 }) {
            throw ValidationError("\(bad) is not a recipe id; ids are the numbers `recipes list` shows")
        }
    }

    func run() throws {
        let context = CommandContext(homeOption: Self.homeOption(global, root))
        try context.reportingFailures {
            let store = try context.openStore()
            let formatter = RecipeFormatter(media: store.media, now: Date())
            let recipes = try store.recipes(ids: ids.isEmpty ? nil : ids)
            context.console.out(json ? formatter.statusJSON(recipes) : formatter.status(recipes))
        }
    }
}
