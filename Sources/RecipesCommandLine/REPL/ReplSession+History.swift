import Foundation
import RecipeModels
import RecipeStore

extension ReplSession {
    /// `delete`, `history` and `undo`.
    func executeHistoryCommand(_ command: ReplCommand) throws -> LineResult {
        var text = HistoryText()
        text.dialect = dialect
        switch command {
        case .delete(let reference, let verbose):
            let recipe = try store.recipe(id: store.recipeID(reference))
            let removed = try writableStore().delete(recipe.id)
            if verbose || receipts { console.out(Self.deleted(recipe, removed: removed, dialect: dialect)) }
        case .history(let reference, let deleted, let json):
            let all = { [store] (id: Int64) in (try? store.history(of: id)) ?? [] }
            if deleted {
                let entries = try store.deletedRecipes()
                console.out(json ? text.json(entries, all: all) : text.deleted(entries))
            } else if let reference {
                let id = try store.recipeIDWithHistory(reference)
                let entries = try store.history(of: id)
                guard !entries.isEmpty else {
                    throw CommandLineError("recipe \(id) has no revisions kept on this device yet")
                }
                console.out(json ? text.json(entries.reversed(), all: { _ in entries }) : text.revisions(entries))
            } else {
                let entries = try store.recentHistory(limit: 20)
                console.out(json ? text.json(entries, all: all) : text.recent(entries, all: all))
            }
        case .undo(let reference, let revision, let verbose):
            let id: Int64
            if let reference {
                id = try store.recipeIDWithHistory(reference)
            } else {
                guard let last = try store.lastLocalChange() else {
                    throw CommandLineError("nothing was changed on this device yet, so there is nothing to undo")
                }
                id = last
            }
            // A Mealie keeps no tombstones: a recipe gone from it is made there anew.
            let tombstones = (try? configuration.serverKind()) != .mealie
            let outcome = try writableStore().undo(id, toRevision: revision, tombstones: tombstones)
            if verbose || receipts { console.out(Self.undone(outcome, dialect: dialect)) }
        default:
            break
        }
        return .succeeded
    }

    /// What `delete` says: the recipe it deleted, whether the server's copy goes at the next sync, and how to undo it.
    static func deleted(_ recipe: Recipe, removed: Bool, dialect: CommandDialect) -> String {
        let title = TerminalText.clean(recipe.title)
        let undo = dialect == .shell ? "`recipes undo \(recipe.id)`" : "`undo \(recipe.id)`"
        let server = removed ? "" : ", on the server at the next sync"
        return "deleted \(recipe.id) \"\(title)\"\(server) (\(undo) brings it back)\n"
    }

    /// What `undo` says: which revision's content the recipe holds now, as which revision.
    static func undone(_ outcome: UndoOutcome, dialect: CommandDialect) -> String {
        let recipe = outcome.recipe
        let title = TerminalText.clean(recipe.title)
        var line = outcome.recreated || recipe.sync.deleted
            ? "undo: recipe \(recipe.id) \"\(title)\" is back (revision \(recipe.sync.revision))"
            : "undo: recipe \(recipe.id) \"\(title)\" is as revision \(outcome.restoredRevision) was (now revision \(recipe.sync.revision))"
        if outcome.imageKept { line += "; that revision's image is no longer on this device, so it keeps its image" }
        return line + "; \(dialect.syncAll) sends it\n"
    }
}
