import Foundation
import RecipeModels
import RecipeStore

/// The words of conflicts: `recipes conflicts` (text and JSON), the conflict lines of `show`, and what `recipes
/// resolve` did. Every value shown as text goes through `TerminalText.clean`; the JSON is exact.
enum ConflictText {
    /// One line per conflict with both values in `RecipeEditing.describe`'s words, e.g. `title: mine "Stew", theirs
    /// "Broth"`; a deletion conflict is `recipe: mine changed, theirs deleted` (or the other way round).
    static func lines(_ conflict: RecipeConflict) -> [String] {
        switch conflict {
        case .fields(let conflicts):
            conflicts.map { conflict in
                TerminalText.clean(
                    "\(conflict.field.name): mine \(describe(conflict.mine, of: conflict.field)), "
                        + "theirs \(describe(conflict.theirs, of: conflict.field))")
            }
        case .deletedOnServer:
            ["recipe: mine changed, theirs deleted"]
        case .deletedHere:
            ["recipe: mine deleted, theirs changed"]
        }
    }

    /// A value as `RecipeEditing.describe` words it, a time as `show` writes it (`"30m"`, not `"PT30M"`).
    static func describe(_ value: ConflictValue, of field: ConflictField) -> String {
        switch (field, value) {
        case (.prepTime, .text(let time)), (.cookTime, .text(let time)), (.totalTime, .text(let time)):
            RecipeCard.quoted(RecipeDuration.display(time))
        default:
            RecipeEditing.describe(value)
        }
    }

    /// `recipes conflicts`: each recipe in conflict, what the conflict is, both values of each field and how to
    /// resolve it; `no conflicts` when there are none.
    static func listing(_ recipes: [Recipe], dialect: CommandDialect = .shell) -> String {
        let conflicted = recipes.compactMap { recipe in recipe.sync.conflict.map { (recipe, $0) } }
        guard !conflicted.isEmpty else { return "no conflicts\n" }
        var text = ""
        for (recipe, conflict) in conflicted {
            text += TerminalText.clean("#\(recipe.id) \(recipe.title): \(conflict.summary)") + "\n"
            for line in lines(conflict) { text += "  " + line + "\n" }
            text += "  resolve: \(dialect.resolve(recipe.id))" + (conflict.isWhole ? "" : " (\(dialect.resolveField))") + "\n"
        }
        return text
    }

    /// `recipes conflicts --json`: an array of `{"id","uuid","title","summary","conflicts"}`, `conflicts` as in
    /// `status --json`; `[]` when there are none.
    static func listingJSON(_ recipes: [Recipe]) -> String {
        var writer = JSONWriter()
        writer.array(recipes.compactMap { recipe in recipe.sync.conflict.map { (recipe, $0) } }) { writer, pair in
            let (recipe, conflict) = pair
            writer.object([
                "id": .integer(recipe.id), "uuid": .string(recipe.uuid.lowercasedString), "title": .string(recipe.title),
                "summary": .string(conflict.summary), "conflicts": .raw(StatusEntry.json(conflict.statusEntries)),
            ])
        }
        return writer.text + "\n"
    }

    /// What `recipes resolve` did, in one line: "#4 Soup: resolved title, ingredient 3 (mine); pending, sent by the
    /// next `recipes sync`", or with the conflicts left, or for a deletion conflict what became of the recipe.
    static func resolved(_ resolved: ConflictResolved, dialect: CommandDialect = .shell) -> String {
        let side = resolved.side.rawValue
        let subject = TerminalText.clean("#\(resolved.id) \(resolved.title)")
        switch resolved.resolution {
        case .fields:
            let what = "\(subject): resolved \(resolved.settled.joined(separator: ", ")) (\(side))"
            if let left = resolved.left {
                let names = left.statusEntries.map(\.field).joined(separator: ", ")
                return "\(what); conflicts left: \(names) — \(dialect.resolve(resolved.id))"
            }
            if resolved.state == .synced { return "\(what); synced: it equals the server's copy, nothing to send" }
            return "\(what); pending, sent by the next \(dialect.syncAll)"
        case .recreateOnServer:
            return "\(subject): kept here (mine), though the server deleted it; pending, re-created on the server by the "
                + "next \(dialect.syncAll)"
        case .removeHere:
            return "\(subject): removed here (theirs), as the server deleted it"
        case .deleteOnServer:
            return "\(subject): deletion kept (mine); deleting, sent to the server by the next \(dialect.syncAll)"
        case .restoreFromServer:
            return "\(subject): deletion undone, the server's copy restored (theirs); synced"
        }
    }
}

extension RecipeConflict {
    /// Whether the conflict is resolved as a whole (a deletion on one side), so that `--field` does not apply.
    var isWhole: Bool {
        if case .fields = self { return false }
        return true
    }
}
