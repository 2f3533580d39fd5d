import Foundation
import RecipesTestSupport
import Testing

@Suite("recipes show --units: a recipe in metric or US measures, scaled or not; the stored recipe unchanged")
struct ShowUnitsTests {
    /// A home with recipe 1, "Shortbread": 24 cookies, butter and flour in cups, two eggs, a step at 350 °F.
    static func shortbread() throws -> TemporaryDirectory {
        let dir = TemporaryDirectory()
        let made = try runRecipes(["edit", "--home", dir.homePath], input: """
            new Shortbread
            yield 1 24 cookies
            ingredient add 1 1 cup butter, softened
            ingredient add 1 2 cups flour
            ingredient add 1 2 eggs
            step add 1 "Bake at 350 °F for 20 minutes."

            """)
        #expect(made.status == 0, "\(made)")
        return dir
    }

    @Test("--units metric with --servings 12: cups in millilitres, one egg, 175 °C, a line that says so; --json the same; nothing stored changes")
    func metricAndHalved() throws {
        let dir = try Self.shortbread()
        let shown = try runRecipes(["show", "1", "--units", "metric", "--servings", "12", "--home", dir.homePath])
        #expect(shown.status == 0, "\(shown)")
        for line in ["yield:        12 cookies", "measures:     metric (grams, millilitres, °C)", "  1. 118 ml butter, softened",
                     "  2. 237 ml flour", "  3. 1 egg", "  1. Bake at 175 °C for 20 minutes."] {
            #expect(shown.stdout.contains(line + (line.hasPrefix("measures") ? "" : "\n")), "\(line): \(shown.stdout)")
        }
        let json = try runRecipes(["show", "1", "--units", "metric", "--json", "--home", dir.homePath])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["ingredients"] as? [String] == ["237 ml butter, softened", "473 ml flour", "2 eggs"])
        #expect(object["steps"] as? [String] == ["Bake at 175 °C for 20 minutes."])
        #expect(object["units"] as? String == "metric")
        let stored = try runRecipes(["show", "1", "--json", "--home", dir.homePath])
        let plain = try #require(try JSONSerialization.jsonObject(with: Data(stored.stdout.utf8)) as? [String: Any])
        #expect(plain["ingredients"] as? [String] == ["1 cup butter, softened", "2 cups flour", "2 eggs"])
        #expect(plain["units"] == nil)
    }

    @Test("--units with a system it does not know: a usage error naming the two, exit 64")
    func unknownSystem() throws {
        let dir = try Self.shortbread()
        let refused = try runRecipes(["show", "1", "--units", "imperial", "--home", dir.homePath])
        #expect(refused.status == 64, "\(refused)")
        #expect(refused.stderr.contains("'metric' and 'us'"), "\(refused)")
    }

    @Test("export --servings 12 --units metric: the Markdown page and the JSON-LD carry the quantities as show shows them; plain export keeps them as stored")
    func exportScaled() throws {
        let dir = try Self.shortbread()
        let page = try runRecipes(["export", "1", "--format", "markdown", "--servings", "12", "--units", "metric", "--home", dir.homePath])
        #expect(page.status == 0, "\(page)")
        #expect(page.stdout.contains("- **Yield:** 12 cookies\n"), "\(page.stdout)")
        #expect(page.stdout.contains("## Ingredients\n\n- 118 ml butter, softened\n- 237 ml flour\n- 1 egg\n"), "\(page.stdout)")
        #expect(page.stdout.contains("1. Bake at 175 °C for 20 minutes.\n"), "\(page.stdout)")
        let json = try runRecipes(["export", "1", "--scale", "2", "--home", dir.homePath])
        let documents = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(documents.first?["recipeIngredient"] as? [String] == ["2 cups butter, softened", "4 cups flour", "4 eggs"])
        let plain = try runRecipes(["export", "1", "--home", dir.homePath])
        let kept = try #require(try JSONSerialization.jsonObject(with: Data(plain.stdout.utf8)) as? [[String: Any]])
        #expect(kept.first?["recipeIngredient"] as? [String] == ["1 cup butter, softened", "2 cups flour", "2 eggs"])
        let both = try runRecipes(["export", "--servings", "2", "--scale", "2", "--home", dir.homePath])
        #expect(both.status == 64 && both.stderr.contains("give --servings or --scale, not both"), "\(both)")
    }
}
