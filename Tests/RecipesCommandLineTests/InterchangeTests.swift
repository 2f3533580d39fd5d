import Foundation
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipeStore

/// The folder of the hand-written recipe fixtures.
let recipeFixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/recipes").path

@Suite("recipes import, export and search, run as a user would")
struct InterchangeTests {
    @Test("every fixture shape imports; bad files are named with the reason and leave nothing; the rest still import")
    func importFixtures() throws {
        let dir = TemporaryDirectory()
        let files = ["schema-org-banana-bread.json", "mealie-page.json", "not-a-recipe.json", "nextcloud-cookbook-recipe.json",
                     "malformed.json", "tandoor-export.json", "nameless-recipe.json", "food-blog-page.html",
                     "recipe-site-page.html"].map { recipeFixtures + "/" + $0 }
        let dry = try runRecipes(["import", "--dry-run", "--home", dir.homePath] + files)
        #expect(dry.status == 1)
        #expect(dry.stdout.contains("would import: Mom's World Famous Banana Bread (3 ingredients, 1 step, image \(recipeFixtures)/banana-bread.png)"))
        #expect(try RecipeStore(home: dir.home).count() == 0, "a dry run changes nothing")

        let result = try runRecipes(["import", "--home", dir.homePath] + files)
        #expect(result.status == 1)
        #expect(result.stdout == """
            imported 1: Mom's World Famous Banana Bread
            imported 2: Roasted Tomato Soup
            imported 3: Quick Garlic Pasta
            imported 4: Pizza dough & sauce
            imported 5: Lemonade
            imported 6: Grandma's Apple Crumble
            imported 7: Overnight Oats

            """)
        let errors = result.stderr.split(separator: "\n").map(String.init)
        try #require(errors.count == 3, "\(errors)")
        #expect(errors.allSatisfy { $0.hasPrefix("recipes: \(recipeFixtures)/") && $0.hasSuffix("; nothing of it was imported") })
        #expect(errors[0].contains("not-a-recipe.json: no schema.org Recipe in it"))
        #expect(errors[1].contains("malformed.json: malformed JSON"))
        #expect(errors[2].contains("nameless-recipe.json: recipe 2 of 2: it has no name"))

        let store = try RecipeStore(home: dir.home)
        let bread = try store.recipe(id: 1)
        #expect(bread.image?.format == .png && bread.image?.localFileName != nil, "a local image is attached")
        #expect(bread.sync.state == .pending && bread.sync.revision == 1)
        #expect(try store.recipe(id: 2).sync.remoteImageURL?.hasPrefix("https://mealie.example.org/") == true)
    }

    @Test("import - reads standard input; a missing file or a folder is refused by name")
    func importStandardInputAndBadPaths() throws {
        let dir = TemporaryDirectory()
        let json = #"{"@context":"https://schema.org","@type":"Recipe","name":"Piped","recipeIngredient":["1 egg"]}"#
        let piped = try runRecipes(["import", "-", "--home", dir.homePath], input: json)
        #expect(piped.status == 0 && piped.stdout == "imported 1: Piped\n", "\(piped)")
        let bad = try runRecipes(["import", "/no/such.json", recipeFixtures, "--home", dir.homePath])
        #expect(bad.status == 1)
        #expect(bad.stderr == """
            recipes: /no/such.json: no such file; check the path; nothing of it was imported
            recipes: \(recipeFixtures): a folder; give the files in it (e.g. DIR/*.json); nothing of it was imported

            """)
        #expect(try runRecipes(["import", "--home", dir.homePath]).status == 64)
    }

    @Test("export then import recreates the same recipes, images included, from stdout and from --out")
    func exportImportRoundTrip() throws {
        let dir = TemporaryDirectory()
        let source = dir.url.appendingPathComponent("source").path
        let setup = try runRecipes(["import", "--home", source, recipeFixtures + "/schema-org-banana-bread.json",
                                    recipeFixtures + "/tandoor-export.json", recipeFixtures + "/food-blog-page.html"])
        #expect(setup.status == 0, "\(setup)")
        _ = try runRecipes(["edit", "--home", source], input: "description 2 \"two\\nlines\"\nkeywords 5 a, b\n")
        let original = try RecipeStore(home: RecipesHome(url: URL(fileURLWithPath: source), isExplicit: true))
        let expected = try original.recipes().map { try original.recipe(id: $0.id) }

        func check(_ home: String) throws {
            let copy = try RecipeStore(home: RecipesHome(url: URL(fileURLWithPath: home), isExplicit: true))
            let imported = try copy.recipes().map { try copy.recipe(id: $0.id) }
            #expect(imported.map(RecipeContent.init) == expected.map(RecipeContent.init))
            #expect(imported.map { $0.image?.sha256 } == expected.map { $0.image?.sha256 })
            #expect(imported.map(\.sync.remoteImageURL) == expected.map(\.sync.remoteImageURL))
            #expect(Set(imported.map(\.uuid)).isDisjoint(with: expected.map(\.uuid)), "imported recipes are new ones")
        }

        let stdout = try runRecipes(["export", "--home", source])
        #expect(stdout.status == 0 && stdout.stdout.hasPrefix("[\n"), "\(stdout)")
        let fromStdout = dir.url.appendingPathComponent("a").path
        #expect(try runRecipes(["import", "-", "--home", fromStdout], input: stdout.stdout).status == 0)
        try check(fromStdout)

        let folder = dir.url.appendingPathComponent("exported").path
        let written = try runRecipes(["export", "--out", folder, "--home", source])
        #expect(written.status == 0 && written.stdout.hasPrefix("exported \(folder)/1-mom-s-world-famous-banana-bread.json\n"), "\(written)")
        #expect(FileManager.default.fileExists(atPath: folder + "/1-mom-s-world-famous-banana-bread.png"))
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }.sorted {
            (Int($0.prefix { $0.isNumber }) ?? .max) < (Int($1.prefix { $0.isNumber }) ?? .max)  // unnumbered: last
        }
        let fromFolder = dir.url.appendingPathComponent("b").path
        #expect(try runRecipes(["import", "--home", fromFolder] + files.map { folder + "/" + $0 }).status == 0)
        try check(fromFolder)
        #expect(try runRecipes(["export", "9", "--home", source]).status == 1)
    }

    @Test("imported keywords are exported as they came while nobody edits them: a list, a keyword with a comma, spacing")
    func keywordsKeepTheirForm() throws {
        let dir = TemporaryDirectory()
        let file = dir.url.appendingPathComponent("weeknight.json")
        try Data(#"""
            [{"@context":"https://schema.org","@type":"Recipe","name":"Pasta","keywords":["weeknight","salt, pepper"]},
             {"@context":"https://schema.org","@type":"Recipe","name":"Soup","keywords":"soup, vegan"}]
            """#.utf8).write(to: file)
        #expect(try runRecipes(["import", file.path, "--home", dir.homePath]).status == 0)
        func keywords() throws -> [String] {
            let export = try runRecipes(["export", "--home", dir.homePath])
            #expect(export.status == 0, "\(export)")
            return export.stdout.split(separator: "\n").filter { $0.contains("\"keywords\": ") }
                .map { String($0.trimmingCharacters(in: .whitespaces).dropFirst("\"keywords\": ".count)) }
        }
        #expect(try keywords() == [#"["weeknight","salt, pepper"],"#, #""soup, vegan","#])
        _ = try runRecipes(["title", "1", "Quick pasta", "--home", dir.homePath])
        #expect(try keywords().first == #"["weeknight","salt, pepper"],"#, "another field's edit leaves them as they came")
        _ = try runRecipes(["keywords", "1", "weeknight,", "quick", "--home", dir.homePath])
        #expect(try keywords().first == #""weeknight,quick","#, "edited, they are written in recipes' own shape")
    }

    @Test("search ranks title matches first, shows where and what matched, and follows edits")
    func search() throws {
        let dir = TemporaryDirectory()
        _ = try runRecipes(["edit", "--home", dir.homePath], input: """
            new Bread
            ingredient add 1 1 tomato for the top
            new Tomato soup
            ingredient add 2 800 g tomatoes
            """)
        let result = try runRecipes(["search", "tomato", "--home", dir.homePath])
        #expect(result.status == 0)
        #expect(result.stdout == """
            ID  TITLE        FOUND IN            CONTEXT
            2   Tomato soup  title, ingredients  [Tomato] soup
            1   Bread        ingredients         1 [tomato] for the top

            """, "\(result)")
        let json = try runRecipes(["search", "--json", "tomato", "--home", dir.homePath])
        let hits = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(hits.map { $0["id"] as? Int } == [2, 1])
        try #require(hits.count == 2)
        #expect(hits[0]["fields"] as? [String] == ["title", "ingredients"])
        #expect(hits[0]["words"] as? [String] == ["Tomato", "tomatoes"])
        #expect(hits[1]["context"] as? String == "1 [tomato] for the top")
        _ = try runRecipes(["edit", "--home", dir.homePath], input: "ingredient set 1 1 basil\n")
        #expect(try runRecipes(["search", "tomato", "--home", dir.homePath]).stdout.contains("Bread") == false)
        #expect(try runRecipes(["search", "nothing-like-it", "--home", dir.homePath]).stdout == "no recipe matches \"nothing-like-it\"\n")
        let bad = try runRecipes(["search", "-", "--home", dir.homePath])
        #expect(bad.status == 1 && bad.stderr == "recipes: give at least one word with a letter or digit to search for\n")
        #expect(try runRecipes(["search", "--home", dir.homePath]).status == 64)
    }
}
