import Foundation
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipeStore

/// An editor script in `dir`: `body` is shell run with the card's path in $1.
///
/// The editor command is `/bin/sh <script>`: sh reads the script rather than executing it, since executing a file just
/// written fails with "Text file busy" when another test forks at that moment (the child holds the write descriptor
/// until its own exec).
func editorScript(_ dir: TemporaryDirectory, _ name: String, _ body: String) throws -> String {
    let path = dir.url.appendingPathComponent(name).path
    try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    chmod(path, 0o755)
    return "/bin/sh " + path
}

@Suite("recipes edit <id>: the recipe card in $EDITOR, driven by a script")
struct EditorTests {
    func home() throws -> (TemporaryDirectory, RecipeStore) {
        let dir = TemporaryDirectory()
        let result = try runRecipes(["edit", "--home", dir.homePath], input: """
            new Tomato soup
            ingredient add 1 2 tomatoes
            step add 1 Chop.
            """)
        #expect(result.status == 0, "\(result)")
        return (dir, try RecipeStore(home: dir.home))
    }

    /// The cards left in `edits/` (each with its base beside it, which is not listed).
    func leftovers(_ dir: TemporaryDirectory) -> [String] {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: dir.url.appendingPathComponent("home/edits").path)) ?? []
        return all.filter { !$0.hasSuffix(".base") }
    }

    /// The path of the one card left in `edits/`.
    func keptCard(_ dir: TemporaryDirectory) throws -> String {
        let cards = leftovers(dir)
        try #require(cards.count == 1, "\(cards)")
        return dir.url.appendingPathComponent("home/edits/\(cards[0])").path
    }

    @Test("saving without a change changes nothing and bumps no revision; the file is removed")
    func noChange() throws {
        let (dir, store) = try home()
        let before = try store.recipe(id: 1)
        let editor = try editorScript(dir, "touch.sh", #"touch "$1""#)
        let result = try runRecipes(["edit", "1", "--home", dir.homePath], environment: ["EDITOR": editor])
        #expect(result.status == 0 && result.stdout == "recipe 1 unchanged\n", "\(result)")
        #expect(try store.recipe(id: 1) == before)
        #expect(leftovers(dir).isEmpty)
    }

    @Test("a change is applied in one revision; VISUAL wins over EDITOR")
    func change() throws {
        let (dir, store) = try home()
        let editor = try editorScript(dir, "edit.sh", #"sed -i -e 's/^Title: .*/Title: Red soup/' -e 's/^- 2 tomatoes$/- 3 tomatoes/' -e '$a\\n2. Simmer.' "$1""#)
        let result = try runRecipes(
            ["edit", "1", "--home", dir.homePath], environment: ["VISUAL": editor, "EDITOR": "/bin/false"])
        #expect(result.status == 0 && result.stdout == "saved recipe 1 (revision 4)\n", "\(result)")
        let recipe = try store.recipe(id: 1)
        #expect(recipe.title == "Red soup" && recipe.ingredients.map(\.text) == ["3 tomatoes"])
        #expect(recipe.steps.map(\.text) == ["Chop.", "Simmer."])
        #expect(recipe.sync.revision == 4 && recipe.sync.state == .pending)
        #expect(try runRecipes(["search", "red", "--home", dir.homePath]).stdout.contains("Red soup"), "the index follows")
    }

    @Test("the card edits the whole recipe: times in words, lists, nutrition, a section heading; in one revision")
    func wholeRecipeCard() throws {
        let (dir, store) = try home()
        let editor = try editorScript(dir, "details.sh", #"""
            sed -i -e 's/^Cook time:.*/Cook time: 1 hour 15 minutes/' -e 's/^Category:.*/Category: Soup, Starter/' \
                -e 's/^Nutrition:$/Nutrition:\ncalories: 120 kcal/' -e 's/^Steps:$/Steps:\n== For the soup ==/' "$1"
            """#)
        let result = try runRecipes(["edit", "1", "--home", dir.homePath], environment: ["EDITOR": editor])
        #expect(result.status == 0 && result.stdout == "saved recipe 1 (revision 4)\n", "\(result)")
        let recipe = try store.recipe(id: 1)
        #expect(recipe.details == RecipeDetails(cookTime: "PT1H15M", recipeCategory: ["Soup", "Starter"], nutrition: ["calories": "120 kcal"]))
        #expect(recipe.steps == [Step(text: "Chop.", section: "For the soup")])
        // The card shows them as typed back: opening and saving it again changes nothing.
        let touch = try editorScript(dir, "touch.sh", #"touch "$1""#)
        #expect(try runRecipes(["edit", "1", "--home", dir.homePath], environment: ["EDITOR": touch]).stdout == "recipe 1 unchanged\n")
        let bad = try editorScript(dir, "bad.sh", #"sed -i -e 's/^Prep time:.*/Prep time: a while/' "$1""#)
        let refused = try runRecipes(["edit", "1", "--home", dir.homePath], input: "n\n", environment: ["EDITOR": bad])
        #expect(refused.status == 1 && refused.stderr.contains("Prep time: \"a while\" is not a time"), "\(refused)")
        #expect(try store.recipe(id: 1).sync.revision == 4)
    }

    @Test("a parse error names the line and offers another round, answered on stdin; the fix is applied")
    func parseErrorThenFix() throws {
        let (dir, store) = try home()
        // First round: a line before the first field; second round: the text fixed.
        let editor = try editorScript(dir, "twice.sh", """
            count=$(cat "$0.count" 2>/dev/null || echo 0); echo $((count + 1)) > "$0.count"
            if [ "$count" = 0 ]; then sed -i 's/^Title: /Soup\\nTitle: /' "$1"; else sed -i -e '/^Soup$/d' -e 's/^Title: .*/Title: Fixed soup/' "$1"; fi
            """)
        let result = try runRecipes(["edit", "1", "--home", dir.homePath], input: "\n", environment: ["EDITOR": editor])
        #expect(result.status == 0 && result.stdout == "saved recipe 1 (revision 4)\n", "\(result)")
        #expect(result.stderr.contains("line 5: text before the first field"), "\(result.stderr)")
        #expect(result.stderr.contains("Edit again? [Y/n]"))
        #expect(try store.recipe(id: 1).title == "Fixed soup")
        #expect(leftovers(dir).isEmpty)

        // Declining the new round keeps the text and changes nothing.
        let broken = try editorScript(dir, "broken.sh", #"echo 'Serves 4' > "$1""#)
        let declined = try runRecipes(["edit", "1", "--home", dir.homePath], input: "n\n", environment: ["EDITOR": broken])
        #expect(declined.status == 1 && declined.stderr.contains("your text is kept in "), "\(declined)")
        let kept = try #require(leftovers(dir).first)
        #expect(try String(contentsOfFile: dir.url.appendingPathComponent("home/edits/\(kept)").path, encoding: .utf8) == "Serves 4\n")
        #expect(try store.recipe(id: 1).sync.revision == 4)
    }

    @Test("an editor that fails after changing the text keeps the text and changes nothing; one that cannot start says so")
    func failingEditor() throws {
        let (dir, store) = try home()
        let before = try store.recipe(id: 1)
        let editor = try editorScript(dir, "fail.sh", #"sed -i 's/^Title: .*/Title: Lost?/' "$1"; exit 3"#)
        let result = try runRecipes(["edit", "1", "--home", dir.homePath], environment: ["EDITOR": editor])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.hasPrefix("recipes: the editor (\(editor)) exited with status 3; nothing changed, your text is kept in "))
        let kept = try #require(leftovers(dir).first)
        #expect(try String(contentsOfFile: dir.url.appendingPathComponent("home/edits/\(kept)").path, encoding: .utf8)
            .contains("Title: Lost?"))
        #expect(try store.recipe(id: 1) == before)

        let missing = try runRecipes(["edit", "1", "--home", dir.homePath], environment: ["EDITOR": "no-such-editor-here"])
        #expect(missing.status == 1 && missing.stderr.contains("exited with status 127; nothing changed"), "\(missing)")
        #expect(leftovers(dir).count == 1, "an untouched card is not kept")
        #expect(try runRecipes(["edit", "9", "--home", dir.homePath], environment: ["EDITOR": "true"]).stderr
            == "recipes: no recipe with id 9; `list` shows the ids\n")
    }

    @Test("the REPL's edit <id> runs the same editor; a parse error's question takes the next line of the script")
    func replEdit() throws {
        let (dir, store) = try home()
        let editor = try editorScript(dir, "twice.sh", """
            count=$(cat "$0.count" 2>/dev/null || echo 0); echo $((count + 1)) > "$0.count"
            if [ "$count" = 0 ]; then echo 'Title: x' >> "$1"; else sed -i '$d' "$1"; sed -i 's/^Yield:.*/Yield: 2 bowls/' "$1"; fi
            """)
        let result = try runRecipes(["edit", "--home", dir.homePath], input: "edit 1\ny\nshow 1\n", environment: ["EDITOR": editor])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("a second Title: (the first is on line 5)"), "\(result.stderr)")
        #expect(result.stdout.contains("saved recipe 1 (revision 4)") && result.stdout.contains("yield:        2 bowls"))
        #expect(try store.recipe(id: 1).recipeYield == "2 bowls")
    }

    @Test("a recipe changed while the editor was open is merged three ways; a conflict comes back as a merged card")
    func changedMeanwhile() throws {
        let (dir, store) = try home()
        let recipes = builtProduct("recipes").path
        // Meanwhile another process sets the yield; the card changes the title: both are kept.
        let clean = try editorScript(dir, "clean.sh", """
            echo 'yield 1 "6 bowls"' | '\(recipes)' edit --home '\(dir.homePath)' >/dev/null
            sed -i 's/^Title: .*/Title: Mine/' "$1"
            """)
        let merged = try runRecipes(["edit", "1", "--home", dir.homePath], environment: ["EDITOR": clean])
        #expect(merged.status == 0, "\(merged)")
        #expect(merged.stdout == "saved recipe 1 (revision 5), merged with the change made meanwhile\n")
        #expect(try store.recipe(id: 1).title == "Mine" && store.recipe(id: 1).recipeYield == "6 bowls")

        // Both change the title: the card comes back with the conflict noted; saving it as it is keeps "Ours".
        let conflicting = try editorScript(dir, "conflict.sh", """
            count=$(cat "$0.count" 2>/dev/null || echo 0); echo $((count + 1)) > "$0.count"
            if [ "$count" = 0 ]; then
                echo 'title 1 Theirs' | '\(recipes)' edit --home '\(dir.homePath)' >/dev/null
                sed -i 's/^Title: .*/Title: Ours/' "$1"
            else
                cp "$1" '\(dir.url.path)/second-round.txt'
            fi
            """)
        let result = try runRecipes(["edit", "1", "--home", dir.homePath], input: "y\n", environment: ["EDITOR": conflicting])
        #expect(result.status == 0 && result.stdout == "saved recipe 1 (revision 7)\n", "\(result)")
        #expect(result.stderr.contains("changed while you edited it, and differently in title; the card now holds the merge"))
        let second = try String(contentsOfFile: dir.url.path + "/second-round.txt", encoding: .utf8)
        #expect(second.contains("#   title: yours \"Ours\", now \"Theirs\""), "\(second)")
        #expect(try store.recipe(id: 1).title == "Ours")
        #expect(leftovers(dir).isEmpty)
    }

    @Test("a card the editor replaced by a symbolic link is read, but the merged card is written in its place, not through it")
    func mergedCardNotWrittenThroughLink() throws {
        let (dir, store) = try home()
        let recipes = builtProduct("recipes").path
        let outside = dir.url.appendingPathComponent("outside.txt").path
        let editor = try editorScript(dir, "link.sh", """
            count=$(cat "$0.count" 2>/dev/null || echo 0); echo $((count + 1)) > "$0.count"
            if [ "$count" = 0 ]; then
                echo 'title 1 Theirs' | '\(recipes)' edit --home '\(dir.homePath)' >/dev/null
                sed 's/^Title: .*/Title: Ours/' "$1" > '\(outside)'
                rm "$1" && ln -s '\(outside)' "$1"
            else
                test -L "$1" && echo "still a link" >&2
                cp "$1" '\(dir.url.path)/second-round.txt'
            fi
            """)
        let result = try runRecipes(["edit", "1", "--home", dir.homePath], input: "y\n", environment: ["EDITOR": editor])
        let kept = try String(contentsOfFile: outside, encoding: .utf8)
        #expect(!kept.contains("yours"), "the merged card was written through the link:\n\(kept)")
        #expect(kept.contains("Title: Ours"))
        #expect(result.status == 0 && result.stdout == "saved recipe 1 (revision 5)\n", "\(result)")
        #expect(!result.stderr.contains("still a link"), "\(result)")
        let second = try String(contentsOfFile: dir.url.path + "/second-round.txt", encoding: .utf8)
        #expect(second.contains("#   title: yours \"Ours\", now \"Theirs\""), "\(second)")
        #expect(try store.recipe(id: 1).title == "Ours")
        #expect(leftovers(dir).isEmpty)
    }

    @Test("a card kept after a conflict is applied by `edit <id> --from FILE`, and then removed with its base")
    func keptCardApplied() throws {
        let (dir, store) = try home()
        let recipes = builtProduct("recipes").path
        let conflicting = try editorScript(dir, "conflict.sh", """
            echo 'title 1 Theirs' | '\(recipes)' edit --home '\(dir.homePath)' >/dev/null
            sed -i 's/^Title: .*/Title: Ours/' "$1"
            """)
        let declined = try runRecipes(["edit", "1", "--home", dir.homePath], input: "n\n", environment: ["EDITOR": conflicting])
        let card = try keptCard(dir)
        #expect(declined.status == 1 && declined.stderr.contains("the merged card is kept in \(card) (`recipes edit 1 --from \(card)` applies it)"), "\(declined)")
        #expect(FileManager.default.fileExists(atPath: card + ".base"), "the recipe the card started from is beside it")
        #expect(try store.recipe(id: 1).title == "Theirs")
        let applied = try runRecipes(["edit", "1", "--from", card, "--home", dir.homePath])
        #expect(applied.status == 0 && applied.stdout == "saved recipe 1 (revision 5)\n", "\(applied)")
        #expect(try store.recipe(id: 1).title == "Ours")
        #expect(leftovers(dir).isEmpty && !FileManager.default.fileExists(atPath: card + ".base"))
    }

    @Test("--from merges three ways with what changed since the card was kept: other fields merge, the same field is a conflict")
    func keptCardMerged() throws {
        let (dir, store) = try home()
        let failing = try editorScript(dir, "fail.sh", #"sed -i 's/^Title: .*/Title: Lost?/' "$1"; exit 3"#)
        #expect(try runRecipes(["edit", "1", "--home", dir.homePath], environment: ["EDITOR": failing]).status == 1)
        let card = try keptCard(dir)
        // Meanwhile: the yield (another field) changes; the card's title still applies, the yield is kept.
        #expect(try runRecipes(["yield", "1", "6 bowls", "--home", dir.homePath]).status == 0)
        let merged = try runRecipes(["edit", "1", "--from", card, "--home", dir.homePath])
        #expect(merged.status == 0 && merged.stdout == "saved recipe 1 (revision 5), merged with the change made meanwhile\n", "\(merged)")
        #expect(try store.recipe(id: 1).title == "Lost?" && store.recipe(id: 1).recipeYield == "6 bowls")

        // Kept again, and meanwhile the same field changes: a conflict, noted in the card; nothing changes until settled.
        let failingAgain = try editorScript(dir, "again.sh", #"sed -i 's/^Title: .*/Title: Lost again/' "$1"; exit 3"#)
        #expect(try runRecipes(["edit", "1", "--home", dir.homePath], environment: ["EDITOR": failingAgain]).status == 1)
        let second = try keptCard(dir)
        #expect(try runRecipes(["title", "1", "Found", "--home", dir.homePath]).status == 0)
        try String(contentsOfFile: second, encoding: .utf8).replacingOccurrences(of: "Title: Lost again", with: "Title: Mine")
            .write(toFile: second, atomically: true, encoding: .utf8)
        let before = try store.recipe(id: 1)
        let conflict = try runRecipes(["edit", "1", "--from", second, "--home", dir.homePath])
        #expect(conflict.status == 1, "\(conflict)")
        #expect(conflict.stderr.contains("differs in title; nothing changed: \(second) now holds the merge"), "\(conflict.stderr)")
        #expect(try store.recipe(id: 1) == before)
        #expect(try String(contentsOfFile: second, encoding: .utf8).contains("#   title: yours \"Mine\", now \"Found\""))
        let settled = try runRecipes(["edit", "--home", dir.homePath], input: "edit 1 --from \(second)\nshow 1 --details\n")
        #expect(settled.status == 0 && settled.stdout.contains("saved recipe 1") && settled.stdout.contains("title:        Mine"), "\(settled)")
        #expect(leftovers(dir).isEmpty)
    }

    @Test("--from refuses a card of another recipe and a file that is no card, changing nothing; a card of your own stays")
    func fromRefusals() throws {
        let (dir, store) = try home()
        _ = try store.create(title: "Bread")
        let before = try store.recipe(id: 1)
        let other = dir.url.appendingPathComponent("bread.txt").path
        try "# Recipe 2, revision 1. Save and quit to apply.\nTitle: Rye\n".write(toFile: other, atomically: true, encoding: .utf8)
        let wrong = try runRecipes(["edit", "1", "--from", other, "--home", dir.homePath])
        #expect(wrong.status == 1 && wrong.stderr == "recipes: \(other) is a card of recipe 2 (its first line says so), not of recipe 1; apply it with `recipes edit 2 --from \(other)`\n", "\(wrong)")
        let garbage = dir.url.appendingPathComponent("notes.txt").path
        try "Serves 4\n".write(toFile: garbage, atomically: true, encoding: .utf8)
        let bad = try runRecipes(["edit", "1", "--from", garbage, "--home", dir.homePath])
        #expect(bad.status == 1 && bad.stderr.hasPrefix("recipes: \(garbage): line 1:") && bad.stderr.hasSuffix("; nothing changed\n"), "\(bad)")
        #expect(try store.recipe(id: 1) == before)
        let noID = try runRecipes(["edit", "--from", garbage, "--home", dir.homePath])
        #expect(noID.status == 64)
        let mine = dir.url.appendingPathComponent("soup.txt").path
        try "Title: Soup of my own\nIngredients:\n- 2 tomatoes\n".write(toFile: mine, atomically: true, encoding: .utf8)
        let applied = try runRecipes(["edit", "1", "--from", mine, "--home", dir.homePath])
        #expect(applied.status == 0, "\(applied)")
        #expect(try store.recipe(id: 1).title == "Soup of my own")
        #expect(FileManager.default.fileExists(atPath: mine), "a card recipes did not write is left where it is")
    }
}
