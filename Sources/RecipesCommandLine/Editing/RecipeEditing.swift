import Foundation
import RecipeModels
import RecipeStore

/// `recipes edit <id>` and the REPL's `edit <id>`: the recipe as a card in the person's editor, read back and applied
/// in one transaction when they save; `recipes edit <id> --from FILE`: a card already written (a kept one) applied
/// the same way.
///
/// Nothing they type is lost: a card that does not parse is offered for another round (the question is answered
/// with a line on standard input, so a pipe can answer it too). A recipe changed meanwhile (a pull, another
/// terminal) is merged three ways as a pull merges: the recipe as the card started from, their card, the recipe
/// now; without conflicts the merge is saved, with conflicts the merged card (theirs where they changed it, the
/// conflicting values noted at the top) is offered for another round. Whenever their text cannot be applied — they
/// decline a new round, the editor fails, the recipe was deleted meanwhile — the file stays, with the recipe its
/// card started from beside it (`EditFile`), and its path is printed with the command that applies it.
struct RecipeEditing {
    let store: RecipeStore
    let editor: EditorProcess
    let console: any Console
    /// Asks a question and returns the answer line, or nil at end of input.
    let ask: (String) async -> String?
    /// What starts a problem line on stderr: `recipes: ` for the command, `error: ` in the REPL.
    var problemPrefix = "error: "
    /// The words of the command that applies a kept card (`recipes edit 4 --from …` or `edit 4 --from …`).
    var dialect: CommandDialect = .shell

    /// What applying a card came to.
    enum Applied {
        /// Saved or unchanged: the line that says so.
        case done(String)
        /// The recipe changed meanwhile, differently in some fields: the merge (theirs where only they changed,
        /// mine where both did), the conflicts, and the recipe as it is now (the next round's base).
        case conflicts(merged: RecipeContent, conflicts: [FieldConflict], current: Recipe)
    }

    /// The command that applies the card at `path` to recipe `id`.
    func applyCommand(_ id: Int64, _ path: String) -> String {
        (dialect == .shell ? "`recipes edit \(id) --from " : "`edit \(id) --from ") + path + "`"
    }

    /// Edits recipe `id`; returns the line that says what came of it.
    func edit(_ id: Int64) async throws -> String {
        var recipe = try store.recipe(id: id)
        if recipe.sync.state == .deleting { throw StoreError(.recipeDeleted(id: id)) }
        var original = RecipeCard.text(of: RecipeContent(recipe), comments: Self.comments(for: recipe))
        let file = try EditFile.create(in: store.home, id: id, text: original, base: recipe)
        let kept = "your text is kept in \(file.path) (\(applyCommand(id, file.path)) applies it)"
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
            switch try apply(content, to: id, base: recipe, kept: kept) {
            case .done(let line):
                file.remove()
                return line
            case .conflicts(let merged, let conflicts, let current):
                // The next round edits the recipe as it is now: the card holds the merge, conflicts noted on top.
                recipe = current
                original = RecipeCard.text(of: RecipeContent(current), comments: Self.comments(for: current))
                try file.replace(with: Self.mergedCard(merged, conflicts, current), base: current)
                console.err(problemPrefix + "recipe \(id) changed while you edited it, and differently in "
                    + conflicts.map(\.field.name).joined(separator: ", ") + "; the card now holds the merge\n")
                if await askToEditAgain() { continue }
                throw CommandLineError(
                    "nothing changed; the merged card is kept in \(file.path) (\(applyCommand(id, file.path)) applies it)")
            }
        }
    }

    /// Applies the card at `path` to recipe `id`, three ways as the editor's own save does: against the recipe the
    /// card started from (kept beside a card recipes wrote; else the recipe now when the card's first line names
    /// its current revision, or nothing — every field the two hold differently is then a conflict). With conflicts
    /// the file is rewritten with the merge, the conflicts noted at its top, and nothing changes; a card recipes
    /// kept is removed once applied. Returns the line that says what came of it.
    func apply(from path: String, to id: Int64) throws -> String {
        let current = try store.recipe(id: id)
        if current.sync.state == .deleting { throw StoreError(.recipeDeleted(id: id)) }
        let file = EditFile(path: path)
        let database = DatabaseFiles(home: store.home)
        let text = try file.read(
            refusing: database, advice: "; give the path of a recipe card (`recipes edit \(id)` keeps them in <home>/edits)")
        let header = RecipeCardHeader(text)
        if let named = header?.id, named != id {
            throw CommandLineError("\(path) is a card of recipe \(named) (its first line says so), not of recipe \(id); "
                + "apply it with \(applyCommand(named, path))")
        }
        let content: RecipeContent?
        do {
            content = try RecipeCard.parse(text)
        } catch {
            throw CommandLineError("\(path): \(error.errorDescription ?? error.message); nothing changed")
        }
        guard let content else { return "recipe \(id) unchanged (the card is empty)" }
        let ours = file.isIn(store.home)
        let kept = "the card is kept in \(path)"
        var base: Recipe?
        if let stored = file.base(refusing: database) {
            var known = current
            known.sync.revision = stored.revision
            known.title = stored.content.title
            known.description = stored.content.description
            known.recipeYield = stored.content.recipeYield
            known.keywords = stored.content.keywords
            known.ingredients = stored.content.ingredients.map(Ingredient.init(text:))
            known.steps = stored.content.steps
            known.details = stored.content.details
            base = known
        } else if header?.revision == nil || header?.revision == current.sync.revision {
            base = current
        }
        let applied: Applied
        if let base {
            applied = try apply(content, to: id, base: base, kept: kept)
        } else {
            let result = RecipeMerge.mergeWithoutBase(mine: Self.fields(content, image: current), theirs: RecipeFields(current))
            applied = result.hasConflicts
                ? .conflicts(merged: Self.content(result.merged), conflicts: result.conflicts, current: current)
                : .done("recipe \(id) unchanged: it already reads as the card")
        }
        switch applied {
        case .done(let line):
            if ours { file.remove() }
            return line
        case .conflicts(let merged, let conflicts, let now):
            try file.replace(with: Self.mergedCard(merged, conflicts, now), base: now)
            throw CommandLineError(
                "recipe \(id) is no longer what the card started from, and differs in "
                    + conflicts.map(\.field.name).joined(separator: ", ")
                    + "; nothing changed: \(path) now holds the merge, the conflicts noted at its top; settle them and run "
                    + "\(applyCommand(id, path)) again")
        }
    }

    /// Saves `content` over recipe `id`, whose card started from `base`: at once when the recipe is still `base`,
    /// merged three ways when it changed meanwhile (saved when the merge has no conflict). `kept` says where the text
    /// stays when the store refuses it.
    func apply(_ content: RecipeContent, to id: Int64, base: Recipe, kept: String) throws -> Applied {
        var mine = content
        var base = base
        var merged = false
        for _ in 1...5 {
            let outcome: RecipeStore.ContentUpdate
            do {
                outcome = try store.update(id, to: mine, expectingRevision: base.sync.revision)
            } catch {
                let message = error.errorDescription ?? "\(error)"
                throw CommandLineError("\(message); \(kept)")
            }
            switch outcome {
            case .unchanged:
                return .done(merged ? "recipe \(id) unchanged: it already had your changes, made meanwhile elsewhere"
                    : "recipe \(id) unchanged")
            case .saved(let saved):
                let note = merged ? ", merged with the change made meanwhile" : ""
                return .done("saved recipe \(id) (revision \(saved.sync.revision))\(note)")
            case .changedMeanwhile(let current):
                let result = RecipeMerge.merge(
                    base: RecipeFields(base), mine: Self.fields(mine, image: base), theirs: RecipeFields(current))
                base = current
                guard result.hasConflicts else {
                    mine = Self.content(result.merged)
                    merged = true
                    continue
                }
                return .conflicts(merged: Self.content(result.merged), conflicts: result.conflicts, current: current)
            }
        }
        throw CommandLineError("recipe \(id) keeps changing while it is saved; nothing of your edit was applied; \(kept)")
    }

    /// The card of a merge with conflicts: the merge, the recipe's usual comments, then each conflict noted.
    static func mergedCard(_ merged: RecipeContent, _ conflicts: [FieldConflict], _ current: Recipe) -> String {
        RecipeCard.text(of: merged, comments: comments(for: current) + notes(conflicts))
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

/// What the first comment line of a card recipes wrote says: `# Recipe 4, revision 7. …`.
struct RecipeCardHeader: Equatable {
    /// The recipe's local id.
    var id: Int64
    /// The revision the card was written from.
    var revision: Int64

    /// The header of `text`, or nil when its first line is not one.
    init?(_ text: String) {
        guard let first = text.split(separator: "\n", maxSplits: 1).first,
            let match = first.firstMatch(of: #/^# Recipe (\d+), revision (\d+)\./#),
            let id = Int64(match.output.1), let revision = Int64(match.output.2)
        else { return nil }
        self.id = id
        self.revision = revision
    }
}
