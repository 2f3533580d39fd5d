import Foundation
import RecipeModels
import RecipeStore

/// `recipes edit <id>` and the REPL's `edit <id>`: the recipe as a card in the person's editor, read back and applied
/// in one transaction when they save.
///
/// Nothing they type is lost: a card that does not parse is offered for another round (the question is answered
/// with a line on standard input, so a pipe can answer it too). A recipe changed meanwhile (a pull, another
/// terminal) is merged three ways as a pull merges: the recipe as the editor opened it, their card, the recipe now;
/// without conflicts the merge is saved, with conflicts the merged card (theirs where they changed it, the conflicting
/// values noted at the top) is offered for another round. Whenever their text cannot be applied — they decline a new
/// round, the editor fails, the recipe was deleted meanwhile — the file stays and its path is printed.
struct RecipeEditing {
    let store: RecipeStore
    let editor: EditorProcess
    let console: any Console
    /// Asks a question and returns the answer line, or nil at end of input.
    let ask: (String) async -> String?
    /// What starts a problem line on stderr: `recipes: ` for the command, `error: ` in the REPL.
    var problemPrefix = "error: "

    /// Edits recipe `id`; returns the line that says what came of it.
    func edit(_ id: Int64) async throws -> String {
        var recipe = try store.recipe(id: id)
        if recipe.sync.state == .deleting { throw StoreError(.recipeDeleted(id: id)) }
        var original = RecipeCard.text(of: RecipeContent(recipe), comments: Self.comments(for: recipe))
        let file = try EditFile.create(in: store.home, id: id, text: original)
        let kept = "your text is kept in \(file.path)"
        var merges = 0
        while true {
            let status = try await editor.edit(file.path)
            let text = try file.read(refusing: DatabaseFiles(home: store.home))
            guard status == 0 else {
                if text == original {
                    file.remove()
                    throw CommandLineError("the editor (\(editor.command)) exited with status \(status); nothing changed")
                }
                throw CommandLineError("the editor (\(editor.command)) exited with status \(status); nothing changed, \(kept)")
            }
            if text == original {
                file.remove()
                return "recipe \(id) unchanged"
            }
            let content: RecipeContent?
            do {
                content = try RecipeCard.parse(text)
            } catch {
                console.err(problemPrefix + "\(file.path): \(error.errorDescription ?? error.message)\n")
                if await askToEditAgain() { continue }
                throw CommandLineError("nothing changed; \(kept)")
            }
            guard let content else {
                file.remove()
                return "recipe \(id) unchanged (the card was emptied)"
            }
            var mine = content
            var merged = false
            while true {
                let outcome: RecipeStore.ContentUpdate
                do {
                    outcome = try store.update(id, to: mine, expectingRevision: recipe.sync.revision)
                } catch {
                    let message = error.errorDescription ?? "\(error)"
                    throw CommandLineError("\(message); \(kept)")
                }
                switch outcome {
                case .unchanged:
                    file.remove()
                    return merged ? "recipe \(id) unchanged: it already had your changes, made meanwhile elsewhere"
                        : "recipe \(id) unchanged"
                case .saved(let saved):
                    file.remove()
                    let note = merged ? ", merged with the change made meanwhile" : ""
                    return "saved recipe \(id) (revision \(saved.sync.revision))\(note)"
                case .changedMeanwhile(let current):
                    merges += 1
                    guard merges <= 5 else {
                        throw CommandLineError("recipe \(id) keeps changing while it is saved; nothing of your edit was applied; \(kept)")
                    }
                    let result = RecipeMerge.merge(
                        base: RecipeFields(recipe), mine: Self.fields(mine, image: recipe), theirs: RecipeFields(current))
                    let mergedContent = Self.content(result.merged)
                    recipe = current
                    guard result.hasConflicts else {
                        mine = mergedContent
                        merged = true
                        continue
                    }
                    // The next round edits the recipe as it is now: the card holds the merge, conflicts noted on top.
                    original = RecipeCard.text(of: RecipeContent(current), comments: Self.comments(for: current))
                    try file.replace(with: RecipeCard.text(
                        of: mergedContent, comments: Self.comments(for: current) + Self.notes(result.conflicts)))
                    console.err(problemPrefix + "recipe \(id) changed while you edited it, and differently in "
                        + result.conflicts.map(\.field.name).joined(separator: ", ") + "; the card now holds the merge\n")
                    if await askToEditAgain() { break }
                    throw CommandLineError("nothing changed; the merged card is kept in \(file.path)")
                }
                break
            }
        }
    }

    /// `content` with the image and kept properties of `recipe` (a card changes neither) as merge fields.
    static func fields(_ content: RecipeContent, image recipe: Recipe) -> RecipeFields {
        var fields = RecipeFields(recipe)
        fields.title = content.title
        fields.description = content.description
        fields.recipeYield = content.recipeYield
        fields.keywords = content.keywords
        fields.ingredients = content.ingredients
        fields.steps = content.steps
        fields.details = content.details
        return fields
    }

    /// The card's part of merged fields (the image and the kept properties are the store's, left as they are).
    static func content(_ fields: RecipeFields) -> RecipeContent { fields.content }

    /// Comment lines naming each conflict with both values: the card holds yours, the other is noted.
    static func notes(_ conflicts: [FieldConflict]) -> [String] {
        ["", "Changed here and meanwhile elsewhere; the card holds yours, settle each and save:"]
            + conflicts.map { "  \($0.field.name): yours \(describe($0.mine)), now \(describe($0.theirs))" }
    }

    static func describe(_ value: ConflictValue) -> String {
        switch value {
        case .absent: return "(none)"
        case .text(let text): return RecipeCard.quoted(text)
        case .image(let image): return "image \(image.sha256.prefix(12))"
        case .elements(let elements): return elements.isEmpty ? "(none)" : elements.map(RecipeCard.quoted).joined(separator: ", ")
        case .step(let step): return RecipeCard.quoted(step.description)
        case .steps(let steps): return steps.isEmpty ? "(none)" : steps.map { RecipeCard.quoted($0.description) }.joined(separator: ", ")
        }
    }

    /// Asks whether to go back to the editor: yes unless the answer starts with n, or input ended.
    private func askToEditAgain() async -> Bool {
        guard let answer = await ask("Edit again? [Y/n] ") else { return false }
        return !answer.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("n")
    }

    /// The comment lines at the top of a card: which recipe, how to apply or abandon, the format in brief.
    static func comments(for recipe: Recipe) -> [String] {
        var lines = [
            "Recipe \(recipe.id), revision \(recipe.sync.revision). Save and quit to apply; quit without saving to change nothing.",
            "Ingredients one per line, steps separated by a blank line; lines starting with # are ignored.",
            "Text with line breaks, tabs or blanks at either end is written as a JSON string: \"two\\nlines\".",
        ]
        if let image = recipe.image {
            lines.append("Image: \(image.format.rawValue), \(image.byteCount) bytes (`image set \(recipe.id) <path>` changes it).")
        }
        return lines
    }
}
