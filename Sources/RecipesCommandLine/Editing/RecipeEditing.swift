import Foundation
import RecipeModels
import RecipeStore

/// `recipes edit <id>` and the REPL's `edit <id>`: the recipe as a card in the person's editor, read back and applied
/// in one transaction when they save.
///
/// Nothing they type is lost: a card that does not parse is offered for another round (the question is answered
/// with a line on standard input, so a pipe can answer it too), and whenever their text cannot be applied — they
/// decline the new round, the editor fails, the recipe was deleted or changed meanwhile — the file stays and its path
/// is printed.
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
        let recipe = try store.recipe(id: id)
        if recipe.sync.state == .deleting { throw StoreError(.recipeDeleted(id: id)) }
        let original = RecipeCard.text(of: RecipeContent(recipe), comments: Self.comments(for: recipe))
        let file = try EditFile.create(in: store.home, id: id, text: original)
        let kept = "your text is kept in \(file.path)"
        while true {
            let status = try await editor.edit(file.path)
            let text = try file.read()
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
            let outcome: RecipeStore.ContentUpdate
            do {
                outcome = try store.update(id, to: content, expectingRevision: recipe.sync.revision)
            } catch {
                let message = error.errorDescription ?? "\(error)"
                throw CommandLineError("\(message); \(kept)")
            }
            switch outcome {
            case .unchanged:
                file.remove()
                return "recipe \(id) unchanged"
            case .saved(let saved):
                file.remove()
                return "saved recipe \(id) (revision \(saved.sync.revision))"
            case .changedMeanwhile(let current):
                throw CommandLineError(
                    "recipe \(id) changed while you edited it (revision \(recipe.sync.revision) → \(current.sync.revision)); "
                        + "nothing of your edit was applied; \(kept): `show \(id)`, then edit again")
            }
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
