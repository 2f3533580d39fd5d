import Foundation
import RecipesTestSupport
import Testing
@testable import RecipeStore

/// The recipes `recipes export` writes for `ids`, as JSON-LD objects.
func exported(_ ids: [Int], home: String) throws -> [[String: Any]] {
    let result = try runRecipes(["export"] + ids.map(String.init) + ["--home", home])
    #expect(result.status == 0, "\(result)")
    let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    return (json as? [[String: Any]]) ?? [(json as? [String: Any]) ?? [:]]
}

/// A tiny JPEG (one 1×1 grey pixel, 136 bytes), in base64 as Paprika keeps its photos.
let tinyJPEGBase64 = "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////"
    + "////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxD/2Q=="

/// Writes a `.paprikarecipes` export with Python's zipfile and gzip, as Paprika lays it out (one gzip'd JSON
/// `.paprikarecipe` per recipe, deflated in the zip), from `recipes` (JSON objects); returns its path.
func writePaprikaExport(_ recipes: [[String: Any]], in folder: URL, named name: String = "My Recipes.paprikarecipes") throws -> String {
    let path = folder.appendingPathComponent(name).path
    let json = String(decoding: try JSONSerialization.data(withJSONObject: recipes), as: UTF8.self)
    let script = """
        import gzip, json, sys, zipfile
        recipes = json.loads(sys.stdin.read())
        with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
            for r in recipes:
                z.writestr(r["name"] + ".paprikarecipe", gzip.compress(json.dumps(r).encode()))
        """
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script, path]
    let input = Pipe()
    process.standardInput = input
    try process.run()
    input.fileHandleForWriting.write(Data(json.utf8))
    try input.fileHandleForWriting.close()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "python3 wrote the export")
    return path
}

@Suite("recipes import of microdata and RDFa pages and of Paprika's export, run as a user would")
struct MarkupAndPaprikaImportTests {
    /// Three recipes as Paprika 3 exports them: one with a photo and every field, one with a unicode title and
    /// empty fields, one with only a name and an image address.
    static var paprikaRecipes: [[String: Any]] { [
        [
            "uid": "5B1D3F0E-7C2A-4E88-A0B1-0C9E8D7F6A51", "name": "Shakshuka",
            "ingredients": "2 tbsp olive oil\n1 onion, sliced\n400 g tinned tomatoes\n4 eggs",
            "directions": "Soften the onion in the oil.\n\nAdd the tomatoes and simmer 10 minutes.\n\nCrack in the eggs, cover, cook 6 minutes.",
            "description": "Eggs poached in spiced tomatoes.", "notes": "Good with flatbread.", "servings": "2 servings",
            "prep_time": "10 mins", "cook_time": "20 min", "total_time": "30 mins", "source": "Ottolenghi",
            "source_url": "https://example.org/shakshuka", "categories": ["Breakfast", "Vegetarian"], "rating": 4,
            "difficulty": "Easy", "nutritional_info": "Calories: 310\nProtein: 15 g", "photo_data": tinyJPEGBase64,
            "photos": [] as [Any], "created": "2022-06-01 08:15:00", "hash": "A1B2C3", "image_url": "",
        ],
        [
            "uid": "0F6E2A7B-1111-4C3D-9E8F-222233334444", "name": "Crème brûlée 🍮",
            "ingredients": "500 ml double cream\n5 egg yolks\n100 g caster sugar", "directions": "",
            "description": "", "notes": "", "servings": "", "prep_time": "", "cook_time": "", "total_time": "",
            "source": "", "source_url": "", "categories": [] as [Any], "rating": 0, "difficulty": "",
            "nutritional_info": "", "photo_data": NSNull(), "photos": [] as [Any], "created": "2023-01-02 10:00:00",
            "hash": "D4E5F6", "image_url": NSNull(),
        ],
        ["uid": "99AA77BB-0000-4000-8000-000000000003", "name": "Pão de queijo", "image_url": "https://example.org/pao.jpg"],
    ] }

    @Test("a microdata blog page and an RDFa page are imported with their fields, canonical link and image address")
    func markupPages() throws {
        let dir = TemporaryDirectory()
        let files = ["microdata-blog-page.html", "rdfa-recipe-page.html"].map { recipeFixtures + "/" + $0 }
        let dry = try runRecipes(["import", "--dry-run", "--home", dir.homePath] + files)
        #expect(dry.stdout == """
            would import: Nana’s Buttermilk Scones (4 ingredients, 4 steps, image https://crumbdiaries.example.com/wp-content/uploads/2013/04/scones-300x200.jpg)
            would import: Gratin dauphinois (4 ingredients, 4 steps, image https://cuisine-lyon.example.fr/sites/default/files/styles/large/public/gratin.jpg?itok=Xy12)

            """, "\(dry)")
        let result = try runRecipes(["import", "--home", dir.homePath] + files)
        #expect(result.status == 0 && result.stdout == "imported 1: Nana’s Buttermilk Scones\nimported 2: Gratin dauphinois\n", "\(result)")
        let recipes = try exported([1, 2], home: dir.homePath)
        try #require(recipes.count == 2)
        #expect(recipes[0]["url"] as? String == "https://crumbdiaries.example.com/2013/04/nanas-buttermilk-scones/")
        #expect(recipes[0]["recipeIngredient"] as? [String] == [
            "450 g self-raising flour", "1 tsp baking powder", "75 g cold butter, cubed", "300 ml buttermilk"])
        #expect((recipes[0]["author"] as? [String: Any])?["name"] as? String == "Margaret & Ann Doyle")
        #expect((recipes[0]["aggregateRating"] as? [String: Any])?["ratingValue"] as? String == "4.8")
        #expect(recipes[1]["cookTime"] as? String == "PT1H15M")
        let sections = recipes[1]["recipeInstructions"] as? [[String: Any]] ?? []
        #expect(sections.map { $0["name"] as? String } == ["Les pommes de terre", "Cuisson"])
        let store = try RecipeStore(home: dir.home)
        #expect(try store.recipe(id: 2).sync.remoteImageURL?.hasPrefix("https://cuisine-lyon.example.fr/") == true)

        let again = try runRecipes(["import", "--home", dir.homePath, files[0]])
        #expect(again.stdout == "unchanged 1: Nana’s Buttermilk Scones (it already is as https://crumbdiaries.example.com/2013/04/nanas-buttermilk-scones/ has it)\n")
    }

    @Test("a page with no recipe says what was looked for, and nothing is imported")
    func pageWithoutRecipe() throws {
        let dir = TemporaryDirectory()
        let page = dir.url.appendingPathComponent("post.html")
        try Data(#"<html><body><div itemscope itemtype="https://schema.org/BlogPosting"><h1 itemprop="headline">Hi</h1></div></body></html>"#.utf8)
            .write(to: page)
        let result = try runRecipes(["import", "--home", dir.homePath, page.path])
        #expect(result.status == 1)
        #expect(result.stderr == "recipes: \(page.path): no schema.org Recipe found: looked for JSON-LD "
            + "<script type=application/ld+json>, microdata itemtype=https://schema.org/Recipe and RDFa typeof=Recipe; "
            + "give the recipe's own page, or export it as JSON-LD; nothing of it was imported\n")
        #expect(try RecipeStore(home: dir.home).count() == 0)
    }

    @Test("a Paprika export imports every recipe, its photo attached; again, each updates the recipe of its uid")
    func paprikaExport() throws {
        let dir = TemporaryDirectory()
        let export = try writePaprikaExport(Self.paprikaRecipes, in: dir.url)
        let dry = try runRecipes(["import", "--dry-run", "--home", dir.homePath, export])
        #expect(dry.status == 0)
        #expect(dry.stdout == """
            would import: Shakshuka (4 ingredients, 3 steps, photo of 136 bytes)
            would import: Crème brûlée 🍮 (3 ingredients, 0 steps)
            would import: Pão de queijo (0 ingredients, 0 steps, image https://example.org/pao.jpg)

            """, "\(dry)")
        #expect(try RecipeStore(home: dir.home).count() == 0, "a dry run changes nothing")

        let result = try runRecipes(["import", "--home", dir.homePath, export])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "imported 1: Shakshuka\nimported 2: Crème brûlée 🍮\nimported 3: Pão de queijo\n")
        let store = try RecipeStore(home: dir.home)
        let shakshuka = try store.recipe(id: 1)
        #expect(shakshuka.image?.format == .jpeg && shakshuka.image?.byteCount == 136, "the photo is the recipe's image")
        #expect(try store.recipe(id: 3).sync.remoteImageURL == "https://example.org/pao.jpg")
        let recipes = try exported([1, 2], home: dir.homePath)
        #expect(try store.recipe(id: 1).steps.map(\.text) == [
            "Soften the onion in the oil.", "Add the tomatoes and simmer 10 minutes.", "Crack in the eggs, cover, cook 6 minutes."])
        #expect(recipes[0]["prepTime"] as? String == "PT10M" && recipes[0]["cookTime"] as? String == "PT20M")
        #expect(recipes[0]["recipeYield"] as? String == "2 servings")
        #expect(recipes[0]["recipeCategory"] as? [String] == ["Breakfast", "Vegetarian"])
        #expect(recipes[0]["description"] as? String == "Eggs poached in spiced tomatoes.\n\nNotes: Good with flatbread.")
        #expect((recipes[0]["paprika"] as? [String: Any])?["rating"] as? Int == 4)
        #expect(recipes[1]["name"] as? String == "Crème brûlée 🍮" && recipes[1]["prepTime"] == nil)

        // Exported again from Paprika after an edit there: the same uids update their recipes.
        var edited = Self.paprikaRecipes
        edited[1]["servings"] = "6 ramekins"
        let second = try writePaprikaExport(edited, in: dir.url, named: "Later.paprikarecipes")
        let again = try runRecipes(["import", "--home", dir.homePath, second])
        #expect(again.stdout == """
            unchanged 1: Shakshuka (it already is as \(second) has it)
            updated 2: Crème brûlée 🍮 (imported again from \(second), revision 2)
            unchanged 3: Pão de queijo (it already is as \(second) has it)

            """, "\(again)")
        #expect(try store.count() == 3)
        #expect(try store.recipe(id: 2).recipeYield == "6 ramekins")
        let asNew = try runRecipes(["import", "--as-new", "--home", dir.homePath, second])
        #expect(asNew.stdout.hasPrefix("imported 4: Shakshuka (a second recipe of \(second); 1 has it too)\n"), "\(asNew)")
    }

    @Test("a damaged, truncated or bomb Paprika export is refused with the reason, and nothing of it is imported")
    func paprikaRefusals() throws {
        let dir = TemporaryDirectory()
        let good = try Data(contentsOf: URL(fileURLWithPath: try writePaprikaExport(Self.paprikaRecipes, in: dir.url)))
        func refused(_ bytes: Data, _ name: String) throws -> String {
            let path = dir.url.appendingPathComponent(name).path
            try bytes.write(to: URL(fileURLWithPath: path))
            let result = try runRecipes(["import", "--home", dir.homePath, path])
            #expect(result.status == 1 && result.stdout.isEmpty, "\(result)")
            #expect(result.stderr.hasPrefix("recipes: \(path): ") && result.stderr.hasSuffix("; nothing of it was imported\n"))
            return result.stderr
        }
        #expect(try refused(good.prefix(good.count / 2), "cut.paprikarecipes").contains("not a readable Paprika export: it has no zip directory at its end (the file is truncated"))
        var flipped = good
        flipped[100] ^= 0x01
        #expect(try refused(flipped, "flipped.paprikarecipes").contains("Shakshuka.paprikarecipe: "))
        #expect(try refused(Data("<html>not it</html>".utf8), "page.paprikarecipes").contains("not a Paprika export (neither a zip archive nor gzip data)"))

        let withURL = try runRecipes(["import", "--url", "https://example.org/x", "--home", dir.homePath,
                                      dir.url.appendingPathComponent("My Recipes.paprikarecipes").path])
        #expect(withURL.status == 1 && withURL.stderr.contains(": --url is the address of a saved page; a Paprika export "
            + "keeps each recipe's own (source_url); nothing of it was imported"), "\(withURL)")

        var notAPhoto = Self.paprikaRecipes
        notAPhoto[0]["photo_data"] = Data("plain text, not a JPEG".utf8).base64EncodedString()
        let notAPhotoPath = try writePaprikaExport(notAPhoto, in: dir.url, named: "text-photo.paprikarecipes")
        let textPhoto = try runRecipes(["import", "--home", dir.homePath, notAPhotoPath])
        #expect(textPhoto.status == 1 && textPhoto.stderr == "recipes: \(notAPhotoPath): the photo of \"Shakshuka\": it is not a JPEG, "
            + "PNG, GIF or WebP image; nothing of it was imported\n", "\(textPhoto)")

        let bombPath = dir.url.appendingPathComponent("bomb.paprikarecipes").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import gzip, sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_STORED) as z:
                z.writestr("Soup.paprikarecipe", gzip.compress(b'{"name": "Soup", "notes": "' + b" " * (80 << 20) + b'"}'))
            """, bombPath]
        try process.run()
        process.waitUntilExit()
        let bomb = try Data(contentsOf: URL(fileURLWithPath: bombPath))
        #expect(bomb.count < 1 << 20, "80 MiB of blanks pack to \(bomb.count) bytes")
        #expect(try refused(bomb, "bomb.paprikarecipes") == "recipes: \(dir.url.path)/bomb.paprikarecipes: Soup.paprikarecipe: "
            + "it unpacks to more than 64 MiB, more than a recipe can be (a zip bomb?); export the recipes from Paprika again; "
            + "nothing of it was imported\n")
        #expect(try RecipeStore(home: dir.home).count() == 0)
    }
}
