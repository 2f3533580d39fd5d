import Foundation
import GRDB
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipeStore

@Suite("The whole recipe in the store: migration 0008, edits of the details and sections, search, imports again")
struct WholeRecipeStoreTests {
    @Test("a home made before migration 0008 comes through it without loss: fields, base, conflicts and search as they were")
    func migrationKeepsEverything() throws {
        let dir = TemporaryDirectory()
        let older = Migration.embedded.filter { $0.identifier < "0008" }
        do { _ = try RecipeStore(home: dir.home, migrations: older) }
        // A synced recipe with its base, as a binary of then wrote it.
        let base = #"{"description":"Warm.","ingredients":["2 tomatoes"],"keywords":"soup","recipeYield":"4 servings","steps":["Chop.","Simmer."],"title":"Tomato soup"}"#
        let queue = try DatabaseQueue(path: dir.home.databaseURL.path)
        let id: Int64 = try queue.write { db in
            try db.execute(sql: """
                INSERT INTO recipes (uuid, title, description, recipe_yield, keywords, revision, synced_revision,
                    sent_revision, state, server_version, base_fields, created_at, updated_at)
                VALUES ('0f8fad5b-d9cb-469f-a165-70867728950e', 'Tomato soup', 'Warm.', '4 servings', 'soup', 2, 2, 2,
                    'synced', 2, ?, 0, 0)
                """, arguments: [base])
            let id = db.lastInsertedRowID
            try db.execute(sql: "INSERT INTO ingredients (recipe_id, position, text) VALUES (?, 1, '2 tomatoes')", arguments: [id])
            try db.execute(sql: "INSERT INTO steps (recipe_id, position, text) VALUES (?, 1, 'Chop.'), (?, 2, 'Simmer.')",
                           arguments: [id, id])
            try db.execute(sql: "DELETE FROM recipe_search_stale")
            return id
        }
        try queue.close()
        let store = try RecipeStore(home: dir.home)
        #expect(try store.appliedMigrations() == Migration.embedded.map(\.identifier), "0008 and every migration after it")
        let recipe = try store.recipe(id: id)
        #expect(RecipeContent(recipe) == RecipeContent(
            title: "Tomato soup", description: "Warm.", recipeYield: "4 servings", keywords: "soup",
            ingredients: ["2 tomatoes"], steps: ["Chop.", "Simmer."]))
        #expect(recipe.details.isEmpty && recipe.received == ReceivedProperties())
        #expect(recipe.sync.state == .synced && recipe.sync.serverVersion == 2 && recipe.sync.base == RecipeFields(recipe))
        // The stored base reads and writes back as the same text: the guarded writes of sync compare it so.
        let stored = try store.read { db in try String.fetchOne(db, sql: "SELECT base_fields FROM recipes WHERE id = ?", arguments: [id]) }
        #expect(stored == base && RecipeFields(storedJSON: base)?.storedJSON == base)
        #expect(try store.search(["simmer"]).hits.map(\.id) == [id])
        #expect(try store.search(["title:tomato"]).hits.map(\.id) == [id])
        try store.apply(.detailList(.recipeCategory, ["Soup"]), to: id)
        #expect(try store.search(["category:soup"]).hits.map(\.id) == [id])
    }

    @Test("details, nutrition and sections are edits like the others: one revision each, checked, sections followed by new steps")
    func detailEdits() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Soup").id
        var recipe = try store.apply(.detail(.cookTime, "PT1H30M"), to: id)
        recipe = try store.apply(.detailList(.recipeCategory, [" Soup ", "", "Starter"]), to: id)
        recipe = try store.apply(.detail(.author, "Jane"), to: id)
        recipe = try store.apply(.nutrition(key: "calories", value: "200 kcal"), to: id)
        #expect(recipe.sync.revision == 5)
        #expect(recipe.details == RecipeDetails(cookTime: "PT1H30M", recipeCategory: ["Soup", "Starter"], author: "Jane", nutrition: ["calories": "200 kcal"]))
        #expect(throws: StoreError(.noNutrition(key: "fatContent", id: id, present: ["calories"]))) {
            try store.apply(.nutrition(key: "fatContent", value: ""), to: id)
        }
        #expect(throws: StoreError(.invalidText(field: .author, problem: .lineBreak))) { try store.apply(.detail(.author, "a\nb"), to: id) }
        #expect(try store.recipe(id: id).sync.revision == 5)
        try store.apply(.addStep("Chop."), to: id)
        try store.apply(.addStep("Fry."), to: id)
        try store.apply(.stepSection(from: 2, to: 2, name: "Sauce"), to: id)
        try store.apply(.addStep("Stir."), to: id)  // the last step's section
        try store.apply(.insertStep(1, "Wash."), to: id)  // the section of the step it goes before
        try store.apply(.insertStep(3, "Season."), to: id)
        #expect(try store.recipe(id: id).steps == [
            Step(text: "Wash."), Step(text: "Chop."), Step(text: "Season.", section: "Sauce"), Step(text: "Fry.", section: "Sauce"),
            Step(text: "Stir.", section: "Sauce"),
        ])
        #expect(throws: StoreError(.indexOutOfRange(what: "step", index: 9, count: 5, id: id))) {
            try store.apply(.stepSection(from: 1, to: 9, name: "x"), to: id)
        }
        let content = RecipeContent(try store.recipe(id: id))
        var edited = content
        edited.details.totalTime = "PT2H"
        try #require(!edited.steps.isEmpty)
        edited.steps[0].section = "Prep"
        guard case .saved(let saved) = try store.update(id, to: edited) else { throw StoreError(.changeRefused) }
        #expect(RecipeContent(saved) == edited)
        #expect(saved.sync.revision == 12)
        guard case .unchanged = try store.update(id, to: edited) else { throw StoreError(.changeRefused) }
    }

    @Test("search finds category, cuisine and author, each also as field:word, and follows their edits")
    func searchDetails() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let created = try store.create([
            .init(content: RecipeContent(title: "Minestrone", details: RecipeDetails(recipeCategory: ["Soup"], recipeCuisine: ["Italian"], author: "Anna Rossi"))),
            .init(content: RecipeContent(title: "Soup of the day", details: RecipeDetails(recipeCuisine: ["French"]))),
        ])
        try #require(created.count == 2)
        let (minestrone, daily) = (created[0].id, created[1].id)
        #expect(try store.search(["category:soup"]).hits.map(\.id) == [minestrone])
        #expect(Set(try store.search(["soup"]).hits.map(\.id)) == [minestrone, daily])
        #expect(try store.search(["cuisine:ital"]).hits.map(\.id) == [minestrone])
        #expect(try store.search(["author:rossi"]).hits.first?.fields == [.author])
        try store.apply(.detailList(.recipeCuisine, ["Italian"]), to: daily)
        #expect(Set(try store.search(["cuisine:italian"]).hits.map(\.id)) == [minestrone, daily])
        try store.delete(minestrone)
        #expect(try store.search(["author:anna"]).hits.isEmpty)
    }

    @Test("a server copy with the same fields written otherwise leaves the draft as it is, and keeps the server's forms")
    func newerFormsKept() throws {
        let fixture = try ConflictFixture()
        let edited = try fixture.store.apply(.description("mine"), to: fixture.id)
        var theirs = ConflictFixture.base
        theirs.received.forms = ["recipeIngredient": #"[ "a", "b", "c" ]"#]
        #expect(try fixture.pull(.live(version: 2, fields: theirs)) == .unchanged)
        let recipe = try fixture.recipe()
        #expect(recipe.description == "mine" && recipe.sync.revision == edited.sync.revision)
        #expect(recipe.received.forms == theirs.received.forms)
        var again = theirs
        again.description = "mine"
        again.received.forms = ["description": #""mine""#]
        #expect(try fixture.pull(.live(version: 3, fields: again)) == .acknowledged)
        #expect(try fixture.recipe().received.forms == again.received.forms)
    }

    @Test("an import again writes the page over its recipe in one revision, or nothing when it is the same")
    func importAgain() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        var page = RecipeStore.NewRecipe(
            content: RecipeContent(title: "Cake", ingredients: ["2 eggs"], details: RecipeDetails(url: "https://x.example/cake")),
            received: ReceivedProperties(other: ["aggregateRating": #"{"ratingValue":4}"#], forms: ["name": #""Cake""#]))
        let first = try store.importRecipes([ImportWrite(recipe: page)])
        let created = try #require(first.first)
        let id = created.recipe.id
        #expect(created.outcome == .created)
        #expect(try store.recipeIDs(withURL: "https://x.example/cake") == [id])
        try store.apply(.addStep("Bake."), to: id)
        page.content.ingredients = ["3 eggs"]
        page.received.other["video"] = #"{"@type":"VideoObject"}"#
        let again = try store.importRecipes([ImportWrite(recipe: page, replacing: id), ImportWrite(recipe: page)])
        #expect(again.map(\.outcome) == [.updated, .created])
        let updated = try #require(again.first).recipe
        #expect(updated.sync.revision == 3)
        #expect(updated.ingredients == [Ingredient(text: "3 eggs")] && updated.steps.isEmpty)
        #expect(updated.received == page.received)
        #expect(try store.importRecipes([ImportWrite(recipe: page, replacing: id)]).map(\.outcome) == [.unchanged])
        #expect(try store.recipe(id: id).sync.revision == 3)
        try store.delete(id)
        #expect(throws: StoreError(.unknownRecipe(id: id))) { try store.importRecipes([ImportWrite(recipe: page, replacing: id)]) }
        #expect(try store.count() == 1, "the refused import created nothing")
    }
}
