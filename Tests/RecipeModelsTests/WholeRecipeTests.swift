import Foundation
import Testing
@testable import RecipeModels

/// The big sites' pages in Tests/Fixtures/pages, with `IMAGE_BASE` as their image's host.
func pageFixture(_ name: String, imageBase: String = "https://img.example.com") throws -> Data {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/pages/\(name)")
    return Data(try String(contentsOf: url, encoding: .utf8).replacingOccurrences(of: "IMAGE_BASE", with: imageBase).utf8)
}

@Suite("The whole recipe: the card, merges, imports of the big sites' pages, Markdown")
struct WholeRecipeTests {
    static let full = RecipeContent(
        title: "Tikka masala", description: "Creamy.", recipeYield: "4 servings", keywords: "curry,chicken",
        ingredients: ["600 g chicken"],
        steps: [Step(text: "Mix."), Step(text: "Marinate.", section: "Marinade"), Step(text: "Grill.", section: "Sauce"),
                Step(text: "Simmer.", section: "Sauce"), Step(text: "Serve.")],
        details: RecipeDetails(
            prepTime: "PT20M", cookTime: "P0DT0H40M", totalTime: "about an hour", recipeCategory: ["Main Course", "Dinner"],
            recipeCuisine: ["Indian"], author: "Priya Sharma", url: "https://spice.example.com/tikka/",
            nutrition: ["calories": "612 kcal", "fat Content": "19 g"], tool: ["Pan, large", "Grill"],
            suitableForDiet: ["https://schema.org/GlutenFreeDiet"]))

    @Test("the card shows every detail, sections as headings, and reads back exactly")
    func card() throws {
        let card = RecipeCard.text(of: Self.full)
        #expect(card.contains("Prep time: 20m\nCook time: P0DT0H40M\nTotal time: \"about an hour\"\n"))
        #expect(card.contains("Category: Main Course, Dinner\nCuisine: Indian\nAuthor: Priya Sharma\nURL: https://spice.example.com/tikka/\n"))
        #expect(card.contains("Tools: [\"Pan, large\",\"Grill\"]\nDiets: https://schema.org/GlutenFreeDiet\n"))
        #expect(card.contains("Nutrition:\ncalories: 612 kcal\n\"fat Content\": 19 g\n"))
        #expect(card.contains("Steps:\n1. Mix.\n\n== Marinade ==\n\n2. Marinate.\n\n== Sauce ==\n\n3. Grill.\n\n4. Simmer.\n\n== ==\n\n5. Serve.\n"))
        #expect(try RecipeCard.parse(card) == Self.full)
    }

    @Test("a person's card: times in words, lists with commas, nutrition lines, headings; a bad time names its line")
    func typedCard() throws {
        let card = """
            Title: Soup
            Cook time: 1 hour 30 minutes
            Prep time: PT15M
            Category: Soup,  Starter ,
            Nutrition:
            calories: 200 kcal
            Steps:
            == For the stock ==
            Boil.
            Skim.

            == ==
            Serve.
            """
        let content = try #require(try RecipeCard.parse(card))
        #expect(content.details.cookTime == "PT1H30M")
        #expect(content.details.prepTime == "PT15M")
        #expect(content.details.recipeCategory == ["Soup", "Starter"])
        #expect(content.details.nutrition == ["calories": "200 kcal"])
        #expect(content.steps == [Step(text: "Boil. Skim.", section: "For the stock"), Step(text: "Serve.")])
        #expect(throws: RecipeCardError(line: 2, "Cook time: \"soon\" is not a time; write it like 1h 30m, 90 min or PT1H30M (\"\" clears it)")) {
            try RecipeCard.parse("Title: Soup\nCook time: soon\n")
        }
        #expect(throws: RecipeCardError(line: 3, "a nutrition line is `property: text`, e.g. calories: 240 kcal")) {
            try RecipeCard.parse("Title: Soup\nNutrition:\nlots\n")
        }
    }

    @Test("two devices: cookTime and recipeCategory changed apart merge; the same detail or kept property changed on both is a conflict by name")
    func merges() throws {
        let base = RecipeFields(
            title: "Soup", details: RecipeDetails(cookTime: "PT1H", recipeCategory: ["Soup"], nutrition: ["calories": "200 kcal"]),
            received: ReceivedProperties(other: ["aggregateRating": #"{"ratingValue":4}"#]))
        var mine = base
        mine.details.cookTime = "PT1H30M"
        var theirs = base
        theirs.details.recipeCategory = ["Soup", "Starter"]
        let clean = RecipeMerge.merge(base: base, mine: mine, theirs: theirs)
        #expect(clean.conflicts.isEmpty)
        #expect(clean.merged.details.cookTime == "PT1H30M")
        #expect(clean.merged.details.recipeCategory == ["Soup", "Starter"])

        mine.details.nutrition["calories"] = "210 kcal"
        mine.received.other["aggregateRating"] = #"{"ratingValue":5}"#
        theirs.details.cookTime = "PT2H"
        theirs.details.nutrition["calories"] = "250 kcal"
        theirs.details.nutrition["fatContent"] = "3 g"
        theirs.received.other["aggregateRating"] = #"{"ratingValue":3}"#
        let result = RecipeMerge.merge(base: base, mine: mine, theirs: theirs)
        #expect(result.conflicts.map(\.field.name) == ["cooktime", "nutrition calories", "property aggregateRating"])
        #expect(result.conflicts.first == FieldConflict(field: .cookTime, base: .text("PT1H"), mine: .text("PT1H30M"), theirs: .text("PT2H")))
        #expect(result.merged.details.nutrition == ["calories": "210 kcal", "fatContent": "3 g"])
        let theirsChosen = try result.resolving(to: .theirs, only: [ConflictSelector(name: "nutrition"), ConflictSelector(name: "cooktime")])
        #expect(theirsChosen.merged.details.nutrition["calories"] == "250 kcal")
        #expect(theirsChosen.merged.details.cookTime == "PT2H")
        #expect(theirsChosen.conflicts.map(\.field.name) == ["property aggregateRating"])
        // An edit of the conflicting property settles it; the others stay.
        var edited = result.merged
        edited.received.other["aggregateRating"] = #"{"ratingValue":4.5}"#
        #expect(RecipeConflict.fields(result.conflicts).remaining(afterEditFrom: result.merged, to: edited)
            == .fields(Array(result.conflicts.prefix(2))))
    }

    @Test("a Yoast @graph page: author, image and nutrition followed by @id, sections, yield list, entities, every other property kept")
    func yoastGraph() throws {
        let recipes = try RecipeJSONLD.recipes(inFile: try pageFixture("yoast-graph-recipe.html"))
        let recipe = try #require(recipes.first)
        #expect(recipes.count == 1)
        #expect(recipe.content.title == "Chicken Tikka Masala & Rice")
        #expect(recipe.content.description == "Tender chicken in a creamy, smoky tomato sauce – better than the takeaway.")
        #expect(recipe.content.recipeYield == "4 servings")
        try #require(recipe.content.ingredients.count > 3)
        #expect(recipe.content.ingredients[3] == "1 ½ tsp salt")
        #expect(recipe.content.steps.map(\.section) == ["Marinade", "Marinade", "Sauce", "Sauce", "Rice"])
        #expect(recipe.content.details == RecipeDetails(
            prepTime: "PT20M", cookTime: "PT40M", totalTime: "PT1H", recipeCategory: ["Main Course", "Dinner"],
            recipeCuisine: ["Indian"], author: "Priya Sharma", url: "",
            nutrition: ["calories": "612 kcal", "carbohydrateContent": "68 g", "proteinContent": "41 g", "fatContent": "19 g",
                        "saturatedFatContent": "10 g", "sodiumContent": "1210 mg", "servingSize": "1 serving"],
            suitableForDiet: ["https://schema.org/GlutenFreeDiet"]))
        #expect(recipe.image == .remote(url: "https://img.example.com/images/tikka.png"))
        #expect(recipe.received.other.keys.sorted() == ["@id", "aggregateRating", "datePublished", "isPartOf", "mainEntityOfPage", "video"])
        // The author is the Person node, whole (its url and sameAs with it), in the place of the reference.
        let author = try #require(recipe.received.forms?["author"])
        #expect(author.contains(#""url":"https://spice.example.com/about/""#) && author.contains(#""sameAs""#))
        let html = String(decoding: try pageFixture("yoast-graph-recipe.html"), as: UTF8.self)
        #expect(RecipeJSONLD.canonicalLink(inHTML: html) == "https://spice.example.com/chicken-tikka-masala/")
    }

    @Test("a magazine page: authors as a list, yield as a number, tools as HowTools, an ImageObject, vulgar fractions")
    func magazine() throws {
        let recipe = try #require(try RecipeJSONLD.recipes(inFile: try pageFixture("magazine-recipe.html")).first)
        #expect(recipe.content.details.author == "Mary Jones, Good Bakes Magazine")
        #expect(recipe.content.recipeYield == "10")
        #expect(recipe.content.details.tool == ["900g loaf tin", "Electric whisk"])
        #expect(recipe.content.details.url == "https://bakes.example.org/recipes/lemon-drizzle-cake")
        #expect(recipe.content.details.nutrition["proteinContent"] == "5")
        try #require(recipe.content.steps.count > 2)
        #expect(recipe.content.steps[2].text == "Sift in the flour, then add the lemon zest and mix until well combined. Bake for 45–50 mins.")
        #expect(recipe.image == .remote(url: "https://img.example.com/images/lemon.png"))
        #expect(recipe.received.other.keys.sorted() == ["aggregateRating", "datePublished", "publisher"])
        #expect(RecipeJSONLD.canonicalLink(inHTML: String(decoding: try pageFixture("magazine-recipe.html"), as: UTF8.self))
            == "https://bakes.example.org/recipes/lemon-drizzle-cake")
    }

    @Test("the canonical link is found in any attribute order and quoting; a page without one has none")
    func canonicalLinks() {
        #expect(RecipeJSONLD.canonicalLink(inHTML: #"<LINK href=/a?x=1&amp;y=2 REL="Canonical">"#) == "/a?x=1&y=2")
        #expect(RecipeJSONLD.canonicalLink(inHTML: #"<link rel="stylesheet" href="s.css"><link rel='canonical' href='https://x/'>"#) == "https://x/")
        #expect(RecipeJSONLD.canonicalLink(inHTML: "<html><head><link rel=icon href=f.ico></head>") == nil)
    }

    @Test("diets and nutrition as a person names them")
    func names() {
        #expect(DietName.stored("vegan") == "https://schema.org/VeganDiet")
        #expect(DietName.stored("Gluten free") == "https://schema.org/GlutenFreeDiet")
        #expect(DietName.stored("LowFatDiet") == "https://schema.org/LowFatDiet")
        #expect(DietName.stored("paleo") == "paleo")
        #expect(DietName.display("https://schema.org/VegetarianDiet") == "vegetarian")
        #expect(DietName.display("http://schema.org/VeganDiet") == "vegan")
        #expect(NutritionName.property("fat") == "fatContent")
        #expect(NutritionName.property("Saturated-fat") == "saturatedFatContent")
        #expect(NutritionName.property("carbs") == "carbohydrateContent")
        #expect(NutritionName.property("calories") == "calories")
        #expect(NutritionName.property("vitamins") == nil)
    }

    @Test("a Markdown page: title, details, image, ingredients, sections and steps (a break, no made-up heading, where a section ends), nutrition; markup escaped")
    func markdown() {
        var content = Self.full
        content.title = "Tikka *masala*"
        let page = RecipeMarkdown.page(content, image: "1-tikka masala.png")
        #expect(page.hasPrefix("# Tikka \\*masala\\*\n\nCreamy.\n\n- **Prep time:** 20m · **Cook time:** 40m · **Total time:** about an hour\n- **Yield:** 4 servings\n"))
        #expect(page.contains("- **Source:** <https://spice.example.com/tikka/>\n"))
        #expect(page.contains("- **Diets:** gluten-free\n"), "diets by name, as `show` says them")
        #expect(page.contains("![Tikka \\*masala\\*](1-tikka%20masala.png)\n"))
        #expect(page.contains("## Ingredients\n\n- 600 g chicken\n"))
        #expect(page.contains("## Steps\n\n1. Mix.\n\n### Marinade\n\n2. Marinate.\n\n### Sauce\n\n3. Grill.\n4. Simmer.\n\n* * *\n\n5. Serve.\n"))
        #expect(!page.contains("Then"), "no heading the recipe does not have")
        #expect(page.contains("## Nutrition\n\n| | |\n| --- | --- |\n| Calories | 612 kcal |\n| fat Content | 19 g |\n"))
        content.details.nutrition = ["saturatedFatContent": "2 g", "fatContent": "9 g", "servingSize": "1 bowl", "zinc": "1 mg"]
        #expect(RecipeMarkdown.page(content).contains(
            "| Fat | 9 g |\n| Saturated fat | 2 g |\n| Serving size | 1 bowl |\n| zinc | 1 mg |\n"),
            "schema.org's properties by their names, in its order; others as they are, after")
    }
}
