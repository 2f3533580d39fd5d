import Foundation
import RecipeModels
import RecipeStore
@testable import RecipesCommandLine
import RecipesTestSupport
import Testing

@Suite("show as a cook reads it, --details for the sync, list without the revision on a terminal, one line per edit on a terminal")
struct CookViewTests {
    /// A home with recipe 1, "Lasagne": a description, a yield, a cook time, two ingredients, a step in a section,
    /// nutrition and an image.
    static func lasagne() throws -> TemporaryDirectory {
        let dir = TemporaryDirectory()
        let png = dir.url.appendingPathComponent("lasagne.png")
        try Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")!
            .write(to: png)
        let made = try runRecipes(["edit", "--home", dir.homePath], input: """
            new Lasagne
            description 1 "A lasagne for a Tuesday."
            yield 1 4 servings
            cooktime 1 45m
            ingredient add 1 500 g minced beef
            ingredient add 1 9 lasagne sheets
            step add 1 "Brown the beef."
            step section 1 1 Ragù
            nutrition 1 fat "9 g"
            image set 1 \(png.path)

            """)
        #expect(made.status == 0, "\(made)")
        return dir
    }

    @Test("show leads with the title, description and yield; ingredients and steps under headings; no uuid, hash, path or attempts")
    func showIsForCooks() throws {
        let dir = try Self.lasagne()
        let shown = try runRecipes(["show", "lasagne", "--home", dir.homePath])
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.stdout.hasPrefix("Lasagne\nA lasagne for a Tuesday.\n\nyield:        4 servings\ncook time:    45m\n"), "\(shown.stdout)")
        for part in ["\nIngredients\n  1. 500 g minced beef\n  2. 9 lasagne sheets\n", "\nSteps\n  == Ragù ==\n  1. Brown the beef.\n",
                     "nutrition:    Fat 9 g\n", "image:        PNG, ", "state:        pending\n"] {
            #expect(shown.stdout.contains(part), "\(part): \(shown.stdout)")
        }
        for sync in ["uuid", "sha256", "attempts", "revision", "/media/", "modified"] {
            #expect(!shown.stdout.contains(sync), "\(sync): \(shown.stdout)")
        }
        let halved = try runRecipes(["show", "1", "--servings", "2", "--home", dir.homePath])
        #expect(halved.stdout.contains("yield:        2 servings\nscaled:       × 0.5 (quantities and yield)\n"), "\(halved.stdout)")
        #expect(halved.stdout.contains("  1. 250 g minced beef\n"), "\(halved.stdout)")
    }

    @Test("show --details has every field under its name with the uuid, the image's hash and path and the whole sync state")
    func detailsHaveTheSync() throws {
        let dir = try Self.lasagne()
        let shown = try runRecipes(["show", "1", "--details", "--home", dir.homePath])
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.stdout.hasPrefix("id:           1\nuuid:         "), "\(shown.stdout)")
        for part in ["title:        Lasagne\n", "sha256 ", "/media/", "revision:     10 (on this device)\n", "attempts:     0\n",
                     "nutrition:    fatContent 9 g\n", "  1. 500 g minced beef\n"] {
            #expect(shown.stdout.contains(part), "\(part): \(shown.stdout)")
        }
        let repl = try runRecipes(["edit", "--home", dir.homePath], input: "show 1 --details\nshow 1\n")
        #expect(repl.status == 0, "\(repl)")
        #expect(repl.stdout.hasPrefix("id:           1\n") && repl.stdout.contains("\nLasagne\nA lasagne"), "\(repl.stdout)")
    }

    @Test("an empty recipe says its ingredients and steps are none yet")
    func emptyRecipe() throws {
        let dir = TemporaryDirectory()
        #expect(try runRecipes(["new", "Toast", "--home", dir.homePath]).status == 0)
        let shown = try runRecipes(["show", "toast", "--home", dir.homePath])
        #expect(shown.stdout == "Toast\n\ningredients:  none yet\n\nsteps:        none yet\n\nstate:        pending\n"
            + "blocked:      not on the server yet; no server is set: `recipes config set server.url URL` (and server.token), "
            + "then sync\n", "\(shown.stdout)")
    }

    @Test("list: on a pipe the contract's ID STATE REV TITLE; on a terminal ID STATE TITLE, and --details brings REV back")
    func listColumns() throws {
        let dir = try Self.lasagne()
        let piped = try runRecipes(["list", "--home", dir.homePath])
        #expect(piped.stdout.hasPrefix("ID  STATE    REV  TITLE\n1   pending  10   Lasagne\n"), "\(piped.stdout)")
        let screen = try runOnTerminal(["list", "--home", dir.homePath])
        #expect(screen.status == 0)
        #expect(screen.screen.contains("ID  STATE    TITLE") && !screen.screen.contains("REV"), "\(screen.screen)")
        let details = try runOnTerminal(["list", "--details", "--home", dir.homePath])
        #expect(details.screen.contains("ID  STATE    REV  TITLE"), "\(details.screen)")
    }

    @Test("an edit from a shell prints one line on a terminal and with --verbose, nothing on a pipe; the REPL on a pipe prints none")
    func editReceipts() throws {
        let dir = try Self.lasagne()
        let piped = try runRecipes(["ingredient", "add", "lasagne", "250 g ricotta", "--home", dir.homePath])
        #expect(piped.status == 0 && piped.stdout.isEmpty, "\(piped)")
        let verbose = try runRecipes(["ingredient", "add", "lasagne", "-v", "125 g mozzarella", "--home", dir.homePath])
        #expect(verbose.stdout == "added ingredient 4 to Lasagne\n", "\(verbose)")
        let screen = try runOnTerminal(["cooktime", "lasagne", "1h", "--home", dir.homePath])
        #expect(screen.status == 0 && screen.screen.contains("set the cook time of Lasagne to 1h"), "\(screen.screen)")
        let script = try runRecipes(["edit", "--home", dir.homePath], input: "step add 1 Bake.\n")
        #expect(script.status == 0 && script.stdout.isEmpty, "\(script)")
        let shown = try runRecipes(["show", "1", "--json", "--home", dir.homePath])
        #expect(shown.stdout.contains("\"250 g ricotta\",\"125 g mozzarella\"") && shown.stdout.contains("\"cookTime\":\"PT1H\""))
    }

    @Test("a conflict of times shows both as show writes them (30m, not PT30M); other values as before")
    func conflictTimes() {
        #expect(ConflictText.describe(.text("PT30M"), of: .cookTime) == "\"30m\"")
        #expect(ConflictText.describe(.text("PT1H30M"), of: .prepTime) == "\"1h 30m\"")
        #expect(ConflictText.describe(.text("PT30M"), of: .title) == "\"PT30M\"")
        #expect(ConflictText.describe(.absent, of: .totalTime) == "(none)")
    }

    @Test("EditReceipt: every kind of edit in one line naming the recipe", arguments: [
        (RecipeChange.title("Lasagne"), "renamed the recipe to Lasagne"),
        (.description(""), "cleared the description of Lasagne"),
        (.yield("6 servings"), "set the yield of Lasagne to 6 servings"),
        (.addIngredient("1 egg"), "added ingredient 3 to Lasagne"),
        (.removeIngredient(2), "removed ingredient 2 from Lasagne"),
        (.moveStep(from: 1, to: 4), "moved step 1 of Lasagne to 4"),
        (.addStep("Bake."), "added step 5 to Lasagne"),
        (.clearImage, "removed the image from Lasagne"),
        (.detail(.prepTime, "PT1H30M"), "set the prep time of Lasagne to 1h 30m"),
        (.detail(.url, ""), "cleared the page of Lasagne"),
        (.detailList(.suitableForDiet, ["https://schema.org/VegetarianDiet"]), "set the diets of Lasagne to vegetarian"),
        (.nutrition(key: "fatContent", value: "9 g"), "set fat of Lasagne to 9 g"),
        (.nutrition(key: "calories", value: ""), "removed calories from Lasagne"),
        (.stepSection(from: 1, to: 2, name: "Ragù"), "put steps 1-2 of Lasagne in the section Ragù"),
    ])
    func receipts(change: RecipeChange, line: String) {
        #expect(EditReceipt.text(for: change, title: "Lasagne", ingredients: 3, steps: 5) == line)
    }
}
