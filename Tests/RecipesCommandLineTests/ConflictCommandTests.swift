import Foundation
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipeStore
@testable import RecipesCommandLine

/// `recipes conflicts`, `recipes resolve`, and what `status` and `show` say of a conflict, run as the built binary on
/// a home put into conflict through the store's sync API (`ConflictFixture`: recipe 1, "Stew" here against the
/// server's "Broth", ingredient 2 "B1" against "B2", the server at version 2).
@Suite("recipes conflicts and resolve, and the conflict in status and show, run as a user would")
struct ConflictCommandTests {
    static let blocked = "changed here and on the server: title, ingredient 2 — `recipes resolve 1 --mine` or `--theirs`"

    @Test("`conflicts` lists each recipe in conflict with both values of each field; `no conflicts` (exit 0) when none")
    func conflictsListing() throws {
        let empty = TemporaryDirectory()
        let none = try runRecipes(["conflicts", "--home", empty.homePath])
        #expect(none.status == 0 && none.stdout == "no conflicts\n" && none.stderr.isEmpty)
        #expect(try runRecipes(["conflicts", "--json", "--home", empty.homePath]).stdout == "[]\n")

        let home = try ConflictFixture()
        try home.fieldConflict()
        let text = try runRecipes(["conflicts", "--home", home.directory.homePath])
        #expect(text.status == 0)
        #expect(text.stdout == """
            #1 Stew: changed here and on the server: title, ingredient 2
              title: mine "Stew", theirs "Broth"
              ingredient 2: mine "B1", theirs "B2"
              resolve: `recipes resolve 1 --mine` or `--theirs` (add --field NAME to choose one field)

            """)
        let json = try runRecipes(["conflicts", "--json", "--home", home.directory.homePath])
        let list = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        try #require(list.count == 1)
        #expect(list[0]["id"] as? Int == 1 && list[0]["title"] as? String == "Stew")
        #expect(list[0]["summary"] as? String == "changed here and on the server: title, ingredient 2")
        let conflicts = try #require(list[0]["conflicts"] as? [[String: String]])
        #expect(conflicts == [["field": "title", "mine": "Stew", "theirs": "Broth"], ["field": "ingredient 2", "mine": "B1", "theirs": "B2"]])
    }

    @Test("status --json has serverVersion and conflicts (empty when none), and blocked names the recipe's own id")
    func statusKeys() throws {
        let home = try ConflictFixture()
        let other = try home.store.create(title: "Bread").id
        try home.fieldConflict()
        let run = try runRecipes(["status", "--json", "--home", home.directory.homePath])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        try #require(entries.count >= 2, "\(run)")  // the conflicted recipe, then Bread
        #expect(Set(entries[0].keys) == [
            "id", "uuid", "title", "state", "revision", "syncedRevision", "attempts", "nextAttemptAt", "lastError",
            "blocked", "image", "remoteImage", "serverVersion", "conflicts",
        ])
        #expect(entries[0]["state"] as? String == "conflict" && entries[0]["serverVersion"] as? Int == 2)
        #expect(entries[0]["blocked"] as? String == Self.blocked)
        let conflicts = try #require(entries[0]["conflicts"] as? [[String: String]])
        #expect(conflicts.map { $0["field"] } == ["title", "ingredient 2"])
        #expect(entries[1]["id"] as? Int64 == other && entries[1]["serverVersion"] is NSNull)
        #expect((entries[1]["conflicts"] as? [Any])?.isEmpty == true)
        let text = try runRecipes(["status", "--home", home.directory.homePath])
        let row = try #require(text.stdout.split(separator: "\n").first { $0.hasPrefix("1 ") })
        #expect(row.contains(" conflict ") && row.contains(Self.blocked), "\(row)")
    }

    @Test("show prints both values of each conflicting field, as text and under sync in --json")
    func showBothValues() throws {
        let home = try ConflictFixture()
        try home.fieldConflict()
        let text = try runRecipes(["show", "1", "--home", home.directory.homePath])
        #expect(text.stdout.contains("""
            conflicts:    changed here and on the server: title, ingredient 2
              title: mine "Stew", theirs "Broth"
              ingredient 2: mine "B1", theirs "B2"

            """), "\(text.stdout)")
        #expect(text.stdout.contains("blocked:      \(Self.blocked)\n"))
        let json = try runRecipes(["show", "1", "--json", "--home", home.directory.homePath])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let sync = try #require(object["sync"] as? [String: Any])
        #expect((sync["conflicts"] as? [[String: String]])?.first == ["field": "title", "mine": "Stew", "theirs": "Broth"])
    }

    @Test("resolve one field, then the rest: what it did in one line each; the recipe is pending afterwards")
    func resolveFieldThenRest() throws {
        let home = try ConflictFixture()
        try home.fieldConflict()
        let path = home.directory.homePath
        let first = try runRecipes(["resolve", "1", "--theirs", "--field", "title", "--home", path])
        #expect(first.status == 0 && first.stderr.isEmpty)
        #expect(first.stdout == "#1 Broth: resolved title (theirs); conflicts left: ingredient 2 — `recipes resolve 1 --mine` or `--theirs`\n")
        let rest = try runRecipes(["resolve", "1", "--mine", "--home", path])
        #expect(rest.stdout == "#1 Broth: resolved ingredient 2 (mine); pending, sent by the next `recipes sync`\n")
        let recipe = try home.recipe()
        #expect(recipe.sync.conflict == nil && recipe.sync.state == .pending
                && recipe.ingredients.count > 1 && recipe.ingredients[1].text == "B1")
        let again = try runRecipes(["resolve", "1", "--mine", "--home", path])
        #expect(again.status == 1)
        #expect(again.stderr == "recipes: recipe 1 has no conflict to resolve; `recipes conflicts` lists the recipes that do\n")
    }

    @Test("resolving to the server's copy says it is synced, with nothing to send")
    func resolveToServersCopy() throws {
        let home = try ConflictFixture()
        try home.fieldConflict()
        let run = try runRecipes(["resolve", "1", "--theirs", "--home", home.directory.homePath])
        #expect(run.stdout == "#1 Broth: resolved title, ingredient 2 (theirs); synced: it equals the server's copy, nothing to send\n")
        #expect(try home.recipe().sync.state == .synced)
    }

    @Test("usage errors exit 64 with one message and change nothing", arguments: [
        (["resolve", "1"], "choose a side: --mine keeps your values, --theirs takes the server's"),
        (["resolve", "1", "--mine", "--theirs"], "choose one side: --mine or --theirs, not both"),
        (["resolve", "--mine"], "recipes: missing expected argument '<id>'; usage: recipes resolve "),
        (["resolve", "0", "--theirs"], "\"0\" names no recipe; give the id"),
        (["resolve", "1", "--theirs", "--field", " "], "--field needs a field name"),
        (["conflicts", "3"], "recipes: unexpected argument '3'; usage: recipes conflicts [--home <DIR>] [--json]\n"),
    ])
    func usageErrors(arguments: [String], message: String) throws {
        let home = try ConflictFixture()
        try home.fieldConflict()
        let before = try home.recipe()
        let run = try runRecipes(arguments + ["--home", home.directory.homePath])
        #expect(run.status == 64, "\(run)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(try home.recipe() == before)
    }

    @Test("a field that names nothing or is not in conflict, or an unknown id, exits 1 with the store's words")
    func refusals() throws {
        let home = try ConflictFixture()
        try home.fieldConflict()
        let before = try home.recipe()
        let path = home.directory.homePath
        let colour = try runRecipes(["resolve", "1", "--mine", "--field", "colour", "--home", path])
        #expect(colour.status == 1)
        let unknownField = try #require(ConflictError.unknownField("colour").errorDescription)
        #expect(colour.stderr == "recipes: " + unknownField + "\n")
        let step = try runRecipes(["resolve", "1", "--mine", "--field", "step 1", "--home", path])
        #expect(step.stderr == "recipes: step 1 is not in conflict; the conflicting fields are: title, ingredient 2\n")
        let unknown = try runRecipes(["resolve", "7", "--mine", "--home", path])
        #expect(unknown.status == 1 && unknown.stderr == "recipes: no recipe with id 7; `list` shows the ids\n")
        #expect(try home.recipe() == before)
    }

    @Test("the REPL's conflicts and resolve, field names typed as words, advice in the REPL's words; help knows them")
    func replCommands() throws {
        let home = try ConflictFixture()
        try home.fieldConflict()
        let run = try runRecipes(
            ["edit", "--home", home.directory.homePath],
            input: "conflicts\nresolve 1 theirs ingredient 2\nresolve 1 sideways\nresolve 1 mine\nconflicts\n")
        #expect(run.status == 1, "one line failed")
        #expect(run.stderr == "error: line 3: choose mine or theirs, not \"sideways\"; usage: resolve <id> mine|theirs [<field>...]\n")
        #expect(run.stdout.hasSuffix("""
            #1 Stew: resolved ingredient 2 (theirs); conflicts left: title — `resolve 1 mine` or `theirs`
            #1 Stew: resolved title (mine); pending, sent by the next `sync`
            no conflicts

            """), "\(run.stdout)")
        #expect(run.stdout.hasPrefix("#1 Stew: changed here and on the server: title, ingredient 2\n"))
        #expect(run.stdout.contains("  resolve: `resolve 1 mine` or `theirs` (add a field's name to choose one field)\n"))
        #expect(!run.stdout.contains("recipes resolve"), "no shell command inside the REPL")
        #expect(ReplSession.help(topic: nil).contains("resolve <id> mine|theirs [<field>...]"))
    }

    @Test("the REPL parses resolve (ingredient N as two words or one) and conflicts; completion offers ids, sides, fields")
    func replParsingAndCompletion() throws {
        #expect(try ReplCommand.parse(["conflicts"]) == .conflicts)
        #expect(try ReplCommand.parse(["resolve", "4", "mine"]) == .resolve(id: 4, side: .mine, fields: []))
        #expect(try ReplCommand.parse(["resolve", "4", "theirs", "title", "ingredient", "3", "step 2", "steps"])
            == .resolve(id: 4, side: .theirs, fields: ["title", "ingredient 3", "step 2", "steps"]))
        #expect(throws: CommandLineError("give the recipe's id, then mine or theirs; usage: resolve <id> mine|theirs [<field>...]")) {
            try ReplCommand.parse(["resolve", "4"])
        }
        #expect(throws: CommandLineError("conflicts takes no arguments; usage: conflicts")) {
            try ReplCommand.parse(["conflicts", "4"])
        }
        let recipes: () -> [(id: Int64, title: String)] = { [(4, "Soup")] }
        func inserts(_ before: [String], _ prefix: String) -> [String] {
            if case .words(let candidates, _) = ReplCompletion.candidates(before: before, prefix: prefix, recipes: recipes) {
                return candidates.map(\.insert)
            }
            return []
        }
        #expect(inserts([], "con") == ["conflicts"])
        #expect(inserts(["resolve"], "") == ["4"])
        #expect(inserts(["resolve", "4"], "") == ["mine", "theirs"])
        #expect(inserts(["resolve", "4", "mine"], "st") == ["steps", "step"])
    }
}
