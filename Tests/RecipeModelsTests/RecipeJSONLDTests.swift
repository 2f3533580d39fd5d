import Foundation
import Testing
@testable import RecipeModels

/// The hand-written fixtures in Tests/Fixtures/recipes, modelled on what schema.org, Mealie, Nextcloud Cookbook,
/// Tandoor and recipe sites publish.
func recipeFixture(_ name: String) throws -> Data {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/recipes/\(name)")
    return try Data(contentsOf: url)
}

@Suite("Reading schema.org Recipe JSON-LD from files and saved pages, writing it for export")
struct RecipeJSONLDTests {
    @Test("schema.org's example: instructions as one text, a relative image path, yield as text")
    func schemaOrgExample() throws {
        let recipes = try RecipeJSONLD.recipes(inFile: try recipeFixture("schema-org-banana-bread.json"))
        #expect(recipes.map(\.content) == [RecipeContent(
            title: "Mom's World Famous Banana Bread",
            description: "This classic banana bread recipe comes from my mom -- the walnuts add a nice texture and flavor to the banana bread.",
            recipeYield: "1 loaf", ingredients: ["3 or 4 ripe bananas, smashed", "1 egg", "3/4 cup of sugar"],
            steps: ["Preheat the oven to 350 degrees. Mix in the ingredients in a bowl. Add the flour last. Pour the mixture into a loaf pan and bake for one hour."],
            details: RecipeDetails(
                prepTime: "PT15M", cookTime: "PT1H", author: "A. Baker",
                nutrition: ["calories": "240 calories", "fatContent": "9 grams fat"],
                suitableForDiet: ["https://schema.org/LowFatDiet"]))])
        #expect(recipes.map(\.image) == [.local(path: "banana-bread.png")])
        // Every property it does not read as a field is kept as written.
        #expect(recipes.first?.received.other.keys.sorted() == ["datePublished", "interactionStatistic"])
        #expect(recipes.first?.received.other["datePublished"] == "\"2009-05-08\"")
    }

    @Test("Mealie: HowToSteps, keywords as a list, a remote image")
    func mealie() throws {
        let recipe = try #require(try RecipeJSONLD.recipes(inFile: try recipeFixture("mealie-page.json")).first)
        #expect(recipe.content.keywords == "soup,vegetarian,tomato")
        #expect(recipe.content.recipeYield == "4 servings")
        #expect(recipe.content.ingredients.count == 5)
        #expect(recipe.content.steps == [
            "Heat the oven to 200 °C.", "Roast the tomatoes and garlic with the oil for 45 minutes.",
            "Squeeze out the garlic, add the stock and blend until smooth. Season."])
        #expect(recipe.image == .remote(url: "https://mealie.example.org/api/media/recipes/3f0c2a5e-0000-4000-8000-000000000001/images/original.webp"))
    }

    @Test("Nextcloud Cookbook: yield as a number, instructions as strings, keywords as text, an empty ingredient dropped")
    func nextcloud() throws {
        let recipe = try #require(try RecipeJSONLD.recipes(inFile: try recipeFixture("nextcloud-cookbook-recipe.json")).first)
        #expect(recipe.content == RecipeContent(
            title: "Quick Garlic Pasta", description: "Weeknight pasta in 15 minutes.", recipeYield: "2",
            keywords: "pasta,quick,garlic",
            ingredients: ["200 g spaghetti", "3 cloves garlic, sliced", "4 tbsp olive oil", "chilli flakes"],
            steps: ["Boil the spaghetti in salted water.", "Warm the garlic in the oil until golden.",
                    "Toss the pasta with the oil and chilli."],
            details: RecipeDetails(
                prepTime: "PT0H5M0S", cookTime: "PT0H10M0S", totalTime: "PT0H15M0S", recipeCategory: ["Main course"],
                url: "https://cooking.example.com/garlic-pasta")))
        #expect(recipe.image == .remote(url: "https://cooking.example.com/img/garlic-pasta.jpg"))
    }

    @Test("Tandoor: an array of recipes, HowToSections, yield as a list, an ImageObject, a single HowToStep")
    func tandoor() throws {
        let recipes = try RecipeJSONLD.recipes(inFile: try recipeFixture("tandoor-export.json"))
        try #require(recipes.count == 2)
        #expect(recipes[0].content.recipeYield == "2 pizzas")
        #expect(recipes[0].content.keywords == "pizza,baking")
        #expect(recipes[0].content.steps == [
            Step(text: "Mix flour, water, yeast and salt.", section: "Dough"),
            Step(text: "Knead for 10 minutes and let it rise for 2 hours.", section: "Dough"),
            Step(text: "Simmer the passata with the oregano for 20 minutes.", section: "Sauce")])
        #expect(recipes[0].image == .remote(url: "https://tandoor.example.net/media/recipes/pizza.jpg"))
        #expect(recipes[1].content == RecipeContent(
            title: "Lemonade", recipeYield: "6", ingredients: ["4 lemons", "150 g sugar", "1.5 l water"],
            steps: ["Squeeze the lemons, stir in sugar and water, chill."]))
        #expect(recipes[1].image == nil)
    }

    @Test("a food blog page: @graph among other nodes, @type as a list, HTML entities, a raw line break, two scripts")
    func foodBlogPage() throws {
        let recipes = try RecipeJSONLD.recipes(inFile: try recipeFixture("food-blog-page.html"))
        #expect(recipes.count == 1)
        let recipe = try #require(recipes.first)
        #expect(recipe.content.title == "Grandma's Apple Crumble")
        #expect(recipe.content.description == "Apples & cinnamon under a buttery crumble – ready in an hour.")
        #expect(recipe.content.recipeYield == "6 portions")
        #expect(recipe.content.keywords == "apple,crumble,autumn")
        #expect(recipe.content.ingredients.first == "6  apples (peeled & sliced)")
        #expect(recipe.content.steps == [
            Step(text: "Toss the apples with the cinnamon.", section: "Filling"),
            Step(text: "Rub the butter into the flour and sugar\nuntil it looks like breadcrumbs.", section: "Crumble"),
            Step(text: "Scatter over the apples and bake at 180°C for 40 minutes.", section: "Crumble")])
        #expect(recipe.image == .remote(url: "https://blog.example.com/wp-content/uploads/crumble.jpg"))
    }

    @Test("a recipe site page: mainEntity, CDATA, ingredients and instructions as text with line breaks")
    func recipeSitePage() throws {
        let recipes = try RecipeJSONLD.recipes(inFile: try recipeFixture("recipe-site-page.html"))
        #expect(recipes.map(\.content) == [RecipeContent(
            title: "Overnight Oats", description: "No cooking needed.", recipeYield: "1 jar", keywords: "breakfast",
            ingredients: ["50 g oats", "150 ml milk", "1 tbsp honey"],
            steps: ["Stir everything together in a jar.", "Leave it in the fridge overnight.", "Top with fruit."])])
        #expect(recipes.map(\.image) == [.remote(url: "https://recipes.example/oats.jpg")])
    }

    @Test("what is not a recipe, malformed or nameless is refused with the reason")
    func refusals() throws {
        let cases: [(Data, String)] = [
            (try recipeFixture("not-a-recipe.json"), "no schema.org Recipe in it"),
            (try recipeFixture("malformed.json"), "malformed JSON"),
            (try recipeFixture("nameless-recipe.json"), "recipe 2 of 2: it has no name"),
            (Data("just some notes".utf8), "neither JSON nor an HTML page"),
            (Data("<html><body>hi</body></html>".utf8), "no schema.org Recipe found: looked for JSON-LD"),
            (Data([0xFF, 0xFE, 0x00]), "not UTF-8"),
            (Data(#"{"@type":"Recipe","name":"x","recipeIngredient":{"a":1}}"#.utf8), "recipeIngredient is neither"),
        ]
        for (data, message) in cases {
            do {
                _ = try RecipeJSONLD.recipes(inFile: data)
                Issue.record("no error: \(message)")
            } catch {
                #expect(error.message.contains(message), "\(error.message)")
            }
        }
    }

    @Test("valid JSON nested deeper than can be read is told as that, not as malformed; brackets in strings do not count")
    func deepNesting() throws {
        let deep = #"{"@type":"Recipe","name":"x","extra":"# + String(repeating: "[", count: 1000)
            + String(repeating: "]", count: 1000) + "}"
        do {
            _ = try RecipeJSONLD.recipes(inFile: Data(deep.utf8))
            Issue.record("no error")
        } catch {
            #expect(error.message == "its JSON nests lists and objects 1001 deep, more than the 512 levels it can be read "
                + "to (a recipe needs a handful); check that the file is the recipe you meant", "\(error.message)")
        }
        let brackets = #"{"@type":"Recipe","name":"x","description":""# + String(repeating: "[", count: 1000) + #""}"#
        #expect(try RecipeJSONLD.recipes(inFile: Data(brackets.utf8)).first?.content.description.count == 1000)
        #expect(RecipeJSONLD.nestingDepth(#"{"a":["\"[{",{"b":[]}]}"#) == 4)
    }

    @Test("images: file: URLs and paths are local, http(s) remote, data: and other schemes left out")
    func imageReferences() {
        #expect(RecipeJSONLD.image("file:///tmp/a%20b.png") == .local(path: "/tmp/a b.png"))
        #expect(RecipeJSONLD.image("/abs/x.jpg") == .local(path: "/abs/x.jpg"))
        #expect(RecipeJSONLD.image(["images/x.jpg"]) == .local(path: "images/x.jpg"))
        #expect(RecipeJSONLD.image("HTTPS://x.example/a.jpg") == .remote(url: "HTTPS://x.example/a.jpg"))
        #expect(RecipeJSONLD.image("data:image/png;base64,AAAA") == nil)
        #expect(RecipeJSONLD.image(["@id": "https://x.example/i.jpg"]) == .remote(url: "https://x.example/i.jpg"))
    }

    @Test("an exported document reads back to the same content")
    func exportReadsBack() throws {
        let content = RecipeCardTests.soup
        let fields = RecipeFields(
            title: content.title, description: content.description, recipeYield: content.recipeYield,
            keywords: content.keywords, ingredients: content.ingredients, steps: content.steps)
        let data = RecipeJSONLD.encode([RecipeJSONLD.document(fields, identifier: "u", dateModified: "2026-01-01T00:00:00Z", image: "x.png")])
        let read = try RecipeJSONLD.recipes(inFile: data)
        #expect(read.map(\.content) == [content])
        #expect(read.map(\.image) == [.local(path: "x.png")])
        #expect(read.first?.received.other == [:])
    }
}
