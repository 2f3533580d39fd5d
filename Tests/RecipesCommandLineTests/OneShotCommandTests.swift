import Foundation
import GRDB
import RecipesTestSupport
import Testing
@testable import RecipeStore
@testable import RecipesCommandLine

@Suite("The REPL's editing commands from a shell, and typos answered with the closest command")
struct OneShotCommandTests {
    @Test("every editing command of the REPL runs as `recipes <command> …`: the same words, one revision each")
    func everyEditingCommandFromTheShell() throws {
        let dir = TemporaryDirectory()
        let home = ["--home", dir.homePath]
        let png = dir.file("pie.png", pngBytes(size: 128))
        let made = try runRecipes(["new", "Apple", "pie"] + home)
        #expect(made.status == 0 && made.stdout == "created 1\n" && made.stderr.isEmpty, "\(made)")
        let commands: [[String]] = [
            ["title", "1", "Apple", "pie", "with", "cream"], ["description", "1", "Warm."], ["yield", "1", "8 slices"],
            ["keywords", "1", "dessert, baking"], ["ingredient", "add", "1", "6", "apples"],
            ["ingredient", "add", "1", "200 g flour"], ["ingredient", "set", "1", "2", "250 g flour"],
            ["ingredient", "insert", "1", "1", "1 lemon"], ["ingredient", "move", "1", "1", "3"],
            ["ingredient", "rm", "1", "3"], ["step", "add", "1", "Peel."], ["step", "insert", "1", "1", "Preheat."],
            ["step", "set", "1", "2", "Peel and slice."], ["step", "move", "1", "2", "1"], ["step", "rm", "1", "2"],
            ["image", "set", "1", png], ["image", "clear", "1"],
        ]
        for (index, command) in commands.enumerated() {
            let run = try runRecipes(command + home)
            #expect(run.status == 0 && run.stdout.isEmpty && run.stderr.isEmpty, "\(command): \(run)")
            let recipe = try RecipeStore(home: dir.home, access: .readOnly).recipe(id: 1)
            #expect(recipe.sync.revision == Int64(index + 2), "\(command) is one revision")
        }
        let recipe = try RecipeStore(home: dir.home, access: .readOnly).recipe(id: 1)
        #expect(recipe.title == "Apple pie with cream" && recipe.description == "Warm." && recipe.recipeYield == "8 slices")
        #expect(recipe.keywords == "dessert,baking" && recipe.image == nil)
        #expect(recipe.ingredients.map(\.text) == ["6 apples", "250 g flour"])
        #expect(recipe.steps.map(\.text) == ["Peel and slice."])
        let deleted = try runRecipes(["--home", dir.homePath, "delete", "1"])
        #expect(deleted.status == 0, "\(deleted)")
        #expect(try RecipeStore(home: dir.home, access: .readOnly).count() == 0)
    }

    @Test("the REPL's checks, a shell's words: a usage error exits 64, an unknown recipe 1, and nothing changes")
    func checksAndExitStatuses() throws {
        let dir = TemporaryDirectory()
        let home = ["--home", dir.homePath]
        let unknown = try runRecipes(["title", "3", "Soup"] + home)
        #expect(unknown.status == 1 && unknown.stderr == "recipes: no recipe with id 3; `list` shows the ids\n", "\(unknown)")
        #expect(!FileManager.default.fileExists(atPath: dir.homePath), "a command naming no recipe creates no home")
        #expect(try runRecipes(["new", "Soup"] + home).status == 0)
        let missing = try runRecipes(["new"] + home)
        #expect(missing.status == 64 && missing.stderr == "recipes: a title is needed; usage: recipes new <title>\n", "\(missing)")
        let badAction = try runRecipes(["ingredient", "chop", "1", "x"] + home)
        #expect(badAction.status == 64, "\(badAction)")
        #expect(badAction.stderr.hasPrefix("recipes: unknown ingredient action \"chop\"; usage: recipes ingredient add <id> <text> | recipes ingredient rm <id> <n>"), "\(badAction.stderr)")
        let range = try runRecipes(["step", "rm", "1", "4"] + home)
        #expect(range.status == 1 && range.stderr == "recipes: recipe 1 has no step 4; it has none\n", "\(range)")
        let control = try runRecipes(["title", "1", "bad\u{7}title"] + home)
        #expect(control.status == 1 && control.stderr.contains("the title contains"), "\(control)")
        let same = try runRecipes(["title", "1", "Soup"] + home)
        #expect(same.status == 0 && same.stdout == "recipe 1 unchanged: it already reads so\n", "\(same)")
        let literal = try runRecipes(["ingredient", "add", "1", "--", "--half", "a", "lemon", "--home"] + home)
        #expect(literal.status == 1, "after --, --home is a word too: the default home has no recipe 1 (\(literal))")
        let dashed = try runRecipes(home + ["ingredient", "add", "1", "--", "--half", "a", "lemon"])
        #expect(dashed.status == 0, "\(dashed)")
        let recipe = try RecipeStore(home: dir.home, access: .readOnly).recipe(id: 1)
        #expect(recipe.ingredients.map(\.text) == ["--half a lemon"] && recipe.sync.revision == 2)
    }

    @Test("a word written as an option the command does not take exits 64 and changes nothing; after -- it is text")
    func optionWhereTextWasMeant() throws {
        let dir = TemporaryDirectory()
        let home = ["--home", dir.homePath]
        #expect(try runRecipes(["new", "Soup"] + home).status == 0)
        let refused = try runRecipes(["yield", "1", "--servings", "4"] + home)
        #expect(refused.status == 64, "\(refused)")
        #expect(refused.stderr == "recipes: \"--servings\" is not an option (yield takes no options); to write it as text, "
            + "put it after --: `recipes yield 1 -- --servings 4`\n", "\(refused.stderr)")
        let unchanged = try RecipeStore(home: dir.home, access: .readOnly).recipe(id: 1)
        #expect(unchanged.recipeYield == "" && unchanged.sync.revision == 1)
        let text = try runRecipes(home + ["yield", "1", "--", "--servings", "4"])
        #expect(text.status == 0, "\(text)")
        #expect(try RecipeStore(home: dir.home, access: .readOnly).recipe(id: 1).recipeYield == "--servings 4")
    }

    @Test("delete says what it deleted and how to undo it on a terminal, nothing on a pipe unless --verbose")
    func deleteSaysWhat() throws {
        let dir = TemporaryDirectory()
        let home = ["--home", dir.homePath]
        #expect(try runRecipes(["edit"] + home, input: "new Local\nnew Remote\nnew Piped\n").status == 0)
        let store = try RecipeStore(home: dir.home)
        try store.pool.write { db in
            try db.execute(sql: "UPDATE recipes SET state = 'synced', synced_revision = 1 WHERE id = 2")
        }
        let local = try runOnTerminal(["delete", "1"] + home)
        #expect(local.status == 0, "\(local.screen)")
        #expect(local.screen.contains("deleted 1 \"Local\" (`recipes undo 1` brings it back)"), "\(local.screen)")
        let remote = try runRecipes(["delete", "2", "--verbose"] + home)
        #expect(remote.status == 0, "\(remote)")
        #expect(remote.stdout == "deleted 2 \"Remote\", on the server at the next sync (`recipes undo 2` brings it back)\n", "\(remote)")
        let piped = try runRecipes(["delete", "3"] + home)
        #expect(piped.status == 0 && piped.stdout.isEmpty && piped.stderr.isEmpty, "silent on a pipe: \(piped)")
        let repl = try runRecipes(["edit"] + home, input: "undo 3\ndelete 3 --verbose\n")
        #expect(repl.stdout == "deleted 3 \"Piped\" (`undo 3` brings it back)\n", "the REPL's own words: \(repl)")
        let again = try runRecipes(["edit"] + home, input: "delete 2\n")
        #expect(again.status == 1 && again.stdout.isEmpty && again.stderr.contains("recipe 2 is deleted"), "\(again)")
    }

    @Test("`recipes <command> --help` prints the command's usage from the REPL's table; `recipes --help` lists them")
    func help() throws {
        let usage = try runRecipes(["step", "--help"])
        #expect(usage.status == 0)
        #expect(usage.stdout.hasPrefix("usage: recipes step add <id> <text> [--verbose] [--home DIR]\n       recipes step rm <id> <n> [--verbose] [--home DIR]\n"), "\(usage)")
        let root = try runRecipes(["--help"])
        let flowing = root.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flowing.contains("new, title, description, yield, keywords, preptime, cooktime, totaltime, category, cuisine, author, url, tools, diets, nutrition, ingredient, step, image, delete"), "\(root.stdout)")
    }

    @Test("a mistyped command gets the closest one, at a shell and in the REPL")
    func typos() throws {
        let dir = TemporaryDirectory()
        let shell = try runRecipes(["sycn", "--home", dir.homePath])
        #expect(shell.status == 64)
        #expect(shell.stderr == "recipes: unknown command \"sycn\"; did you mean `recipes sync`? (`recipes --help` lists the commands)\n")
        let far = try runRecipes(["bake"])
        #expect(far.status == 64 && far.stderr == "recipes: unknown command \"bake\" (`recipes --help` lists the commands)\n",
                "no dangling \"; \" without a suggestion")
        let option = try runRecipes(["scale", "1", "2", "--home", dir.homePath])
        #expect(option.status == 64 && option.stderr == "recipes: unknown command \"scale\"; to scale a recipe: "
            + "`recipes show <id> --scale F` or `--servings N` (`recipes --help` lists the commands)\n", "\(option)")
        let editing = try runRecipes(["ingrediant", "add", "1", "salt"])
        #expect(editing.stderr.contains("did you mean `recipes ingredient`?"), "\(editing)")
        let repl = try runRecipes(["edit", "--home", dir.homePath], input: "lsit\nstauts\n")
        #expect(repl.status == 1)
        #expect(repl.stderr == """
            error: line 1: unknown command "lsit"; did you mean `list`? (`help` lists the commands)
            error: line 2: unknown command "stauts"; did you mean `status`? (`help` lists the commands)

            """, "\(repl.stderr)")
    }

    @Test("the closest command: one edit away for short words, two for longer ones, a unique start; none when unsure",
          arguments: [
            ("sycn", "sync"), ("snyc", "sync"), ("syn", "sync"), ("lsit", "list"), ("stauts", "status"),
            ("statsu", "status"), ("stat", "status"), ("delte", "delete"), ("ingrediant", "ingredient"),
            ("confilcts", "conflicts"), ("imprt", "import"), ("bake", nil), ("x", nil), ("sync", nil), ("s", nil),
            ("co", nil),
          ] as [(String, String?)])
    func closest(word: String, expected: String?) {
        let names = ["edit", "list", "show", "search", "status", "sync", "cancel", "conflicts", "resolve", "import",
                     "export", "cron", "config", "doctor", "new", "title", "delete", "ingredient", "step"]
        #expect(CommandSuggestion.closest(to: word, among: names) == expected)
    }

    @Test("every `recipes <command>` the README and docs/commands.md name is a command recipes has",
          arguments: ["README.md", "docs/commands.md"])
    func readmeNamesOnlyRealCommands(file: String) throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(file)
        let text = try String(contentsOf: readme, encoding: .utf8)
        let parserCommands = RecipesCommand.configuration.subcommands.map { $0._commandName }
        let known = Set(OneShotCommand.allNames(parserCommands: parserCommands))
        let named = text.matches(of: #/`recipes ([a-z][a-z-]*)/#).map { String($0.output.1) }
        #expect(!named.isEmpty)
        for command in Set(named) { #expect(known.contains(command), "\(file) names `recipes \(command)`") }
    }

    @Test("docs/commands.md cannot drift: each command `recipes --help` lists has a section, each section's command exists, and every long option of its --help is in it")
    func commandReferenceMatchesHelp() throws {
        let doc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/commands.md")
        let text = try String(contentsOf: doc, encoding: .utf8)
        var sections: [String: String] = [:]
        var current: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("## ") { current = line.matches(of: #/`recipes ([a-z][a-z-]*)/#).map { String($0.output.1) } }
            for name in current { sections[name, default: ""] += line + "\n" }
        }
        let root = try runRecipes(["--help"])
        let listed = root.stdout.components(separatedBy: "SUBCOMMANDS:").last!.split(separator: "\n")
            .compactMap { $0.wholeMatch(of: #/  ([a-z]+) .*/#).map { String($0.output.1) } }
        #expect(listed.count == RecipesCommand.configuration.subcommands.count, "\(root.stdout)")
        let known = Set(OneShotCommand.allNames(parserCommands: listed))
        for name in sections.keys { #expect(known.contains(name), "docs/commands.md documents `recipes \(name)`") }
        for name in listed {
            let section = try #require(sections[name], "docs/commands.md has no section for `recipes \(name)`")
            let help = try runRecipes([name, "--help"]).stdout
            let subcommands = help.components(separatedBy: "SUBCOMMANDS:").dropFirst().first?.split(separator: "\n")
                .compactMap { $0.wholeMatch(of: #/  ([a-z]+) .*/#).map { String($0.output.1) } } ?? []
            var helps = [help]
            for sub in subcommands { helps.append(try runRecipes([name, sub, "--help"]).stdout) }
            // --home, --help and --version are every command's, documented once under "Every command".
            let options = helps.flatMap { $0.split(separator: "\n") }.filter { $0.hasPrefix("  -") }
                .flatMap { $0.matches(of: #/--[a-z][a-z-]*/#).map { String($0.output) } }
                .filter { !["--home", "--help", "--version"].contains($0) }
            for option in Set(options) { #expect(section.contains(option), "`recipes \(name)`'s section lacks \(option)") }
            for sub in subcommands { #expect(section.contains(sub), "`recipes \(name)`'s section lacks \(sub)") }
        }
        #expect(sections["config"]?.contains("unset") == true)
    }
}
