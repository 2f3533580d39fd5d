import ArgumentParser
import Foundation
import RecipeModels
import RecipeStore
import SyncWatch

/// `recipes status [<id>...]`: where each recipe stands with the server.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show where each recipe stands with the server and why it is not there yet.")

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print a JSON array with the keys id, uuid, title, state, revision, syncedRevision, attempts, nextAttemptAt, lastError, blocked, image, remoteImage, serverVersion, conflicts.")
    var json = false
    @Argument(help: ArgumentHelp(RecipeReference.argumentsHelp), transform: RecipeReference.argument)
    var ids: [RecipeReference] = []

    func run() throws {
        let context = CommandContext(homeOption: Self.homeOption(global, root))
        try context.reportingFailures {
            let store = try context.openStore(.readOnly)
            var formatter = RecipeFormatter(store: store, now: Date())
            (formatter.server, formatter.hasServer) = context.serverForText()
            let recipes = try store.recipes(ids: ids.isEmpty ? nil : store.recipeIDs(ids))
            let notes = Self.folderNotes(context.home)
            let watcher = WatchStatus.current(of: context.home)
            if json {
                // The array keeps exactly its keys: what is said about the folders and a struggling watcher goes to
                // stderr.
                context.console.out(formatter.statusJSON(recipes))
                let struggling = watcher.flatMap { $0.unreachableSince != nil || $0.halted != nil ? $0.line : nil }
                context.console.err((notes + [struggling].compactMap { $0 }).map { "recipes: note: \($0)\n" }.joined())
            } else {
                context.console.out(
                    formatter.status(recipes) + Self.toCome(store, all: ids.isEmpty) + Self.destination(context) + "\n"
                        + (watcher.map { $0.line + "\n" } ?? "") + notes.map { "note: \($0)\n" }.joined())
            }
        }
    }

    /// The line `status` shows about the destination: which kind of server (`server.kind`) at which URL, and for a
    /// kind this build's sync does not speak, that it does not.
    static func destination(_ context: CommandContext) -> String {
        do {
            return try destination(context.configuration(warnAboutPermissions: false))
        } catch {
            let message = (error as? any LocalizedError)?.errorDescription ?? "\(error)"
            return "destination: unknown (\(TerminalText.clean(message)))"
        }
    }

    /// The destination line of `configuration` (`status`, and the REPL's `status`).
    static func destination(_ configuration: ClientConfiguration) -> String {
        let kind: ServerKind
        do {
            kind = try configuration.serverKind()
        } catch {
            return "destination: unknown (\(TerminalText.clean(error.message)))"
        }
        let url = configuration.serverURL.map { TerminalText.clean($0) } ?? "no server.url set"
        return "destination: \(kind.rawValue) server, \(url)"
    }

    /// The lines `status` shows, for every recipe (`all`), about the changes pulls went past without applying them
    /// (`PullToCome`): which recipe is still to come and why, safe to print.
    static func toCome(_ store: RecipeStore, all: Bool) -> String {
        guard all, let toCome = try? store.pullsToCome() else { return "" }
        return toCome.map { TerminalText.clean($0.statusLine) + "\n" }.joined()
    }

    /// The lines `status` adds once about the home's folders (see `FolderNote`), safe to print.
    static func folderNotes(_ home: RecipesHome) -> [String] {
        home.folderNotes().map { TerminalText.clean($0.text) }
    }
}
