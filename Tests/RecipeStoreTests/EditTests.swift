import Foundation
import GRDB
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipeStore

@Suite("Edits bump the revision and mark the recipe for upload in the same transaction")
struct EditTests {
    @Test("a new recipe is pending at revision 1 with a fresh UUID")
    func createsPending() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let a = try store.create(title: "  Tomato soup ")
        let b = try store.create(title: "Bread")
        #expect(a.id == 1 && b.id == 2)
        #expect(a.title == "Tomato soup")
        #expect(a.sync.revision == 1 && a.sync.state == .pending && a.sync.syncedRevision == 0)
        #expect(a.uuid != b.uuid)
        #expect(throws: StoreError(.emptyTitle)) { try store.create(title: "   ") }
    }

    @Test("every kind of change is applied, bumps the revision by one and marks the recipe pending")
    func everyChangeBumps() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Soup").id
        try simulateSync("state = 'synced', synced_revision = 1, attempts = 3", of: id, in: store)
        let changes: [RecipeChange] = [
            .title("Tomato soup"), .description("Warm"), .yield("4 servings"), .keywords(" soup , ,vegan "),
            .addIngredient("2 tomatoes"), .addIngredient("1 onion"), .addIngredient("salt"), .removeIngredient(2),
            .addStep("Chop."), .addStep("Boil."), .removeStep(1),
        ]
        for (index, change) in changes.enumerated() {
            let recipe = try store.apply(change, to: id)
            #expect(recipe.sync.revision == Int64(index + 2))
            #expect(recipe.sync.state == .pending)
            #expect(recipe.sync.attempts == 0)
        }
        let recipe = try store.recipe(id: id)
        #expect(recipe.title == "Tomato soup")
        #expect(recipe.description == "Warm")
        #expect(recipe.recipeYield == "4 servings")
        #expect(recipe.keywords == "soup,vegan")
        #expect(recipe.ingredients.map(\.text) == ["2 tomatoes", "salt"])
        #expect(recipe.steps.map(\.text) == ["Boil."])
        #expect(recipe.sync.syncedRevision == 1)
    }

    @Test("a failed change leaves the recipe exactly as it was")
    func failedChangeChangesNothing() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Soup").id
        try store.apply(.addIngredient("water"), to: id)
        let before = try store.recipe(id: id)
        #expect(throws: StoreError(.indexOutOfRange(what: "ingredient", index: 2, count: 1, id: id))) {
            try store.apply(.removeIngredient(2), to: id)
        }
        #expect(throws: StoreError(.indexOutOfRange(what: "step", index: 1, count: 0, id: id))) {
            try store.apply(.removeStep(1), to: id)
        }
        #expect(throws: StoreError(.emptyTitle)) { try store.apply(.title(" "), to: id) }
        #expect(throws: StoreError(.noImage(id: id))) { try store.apply(.clearImage, to: id) }
        #expect(throws: StoreError(.unknownRecipe(id: 99))) { try store.apply(.title("x"), to: 99) }
        #expect(try store.recipe(id: id) == before)
    }

    @Test("when the revision bump fails, the change itself is rolled back with it")
    func changeAndBumpShareOneTransaction() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Soup").id
        try store.pool.write { db in
            try db.execute(sql: """
                CREATE TEMP TRIGGER refuse_bump BEFORE UPDATE OF revision ON recipes
                BEGIN SELECT RAISE(ABORT, 'injected failure'); END
                """)
        }
        #expect(throws: StoreError.self) { try store.apply(.addIngredient("2 tomatoes"), to: id) }
        #expect(throws: StoreError.self) { try store.apply(.title("Renamed"), to: id) }
        let recipe = try store.recipe(id: id)
        #expect(recipe.ingredients.isEmpty, "the ingredient insert was rolled back with the failed bump")
        #expect(recipe.title == "Soup")
        #expect(recipe.sync.revision == 1)
    }

    @Test("deleting a recipe the server never saw removes it; one it has becomes deleting and refuses edits")
    func deletion() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let local = try store.create(title: "Local").id
        let remote = try store.create(title: "Remote").id
        try simulateSync("state = 'synced', synced_revision = 1", of: remote, in: store)
        try store.delete(local)
        #expect(throws: StoreError(.unknownRecipe(id: local))) { try store.recipe(id: local) }
        try store.delete(remote)
        let deleted = try store.recipe(id: remote)
        #expect(deleted.sync.state == .deleting)
        #expect(deleted.sync.revision == 2)
        #expect(throws: StoreError(.recipeDeleted(id: remote))) { try store.apply(.title("x"), to: remote) }
        #expect(throws: StoreError(.recipeDeleted(id: remote))) { try store.delete(remote) }
    }

    @Test("a recipe whose upload was started is kept as deleting even before any acknowledgement")
    func deletionAfterSendIsRemembered() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Maybe on the server").id
        try simulateSync("sent_revision = 1", of: id, in: store)
        try store.delete(id)
        #expect(try store.recipe(id: id).sync.state == .deleting)
    }

    @Test("status rows come back in id order; unknown ids are an error")
    func listsRecipes() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        for title in ["A", "B", "C"] { _ = try store.create(title: title) }
        #expect(try store.recipes().map(\.title) == ["A", "B", "C"])
        #expect(try store.recipes(ids: [3, 1]).map(\.title) == ["C", "A"])
        #expect(throws: StoreError(.unknownRecipe(id: 7))) { try store.recipes(ids: [1, 7]) }
        #expect(try store.count() == 3)
    }
}

/// Sets sync columns as the sync engine would (e.g. "state = 'synced', synced_revision = 1") for one recipe.
@Suite("An edit that changes nothing costs nothing")
struct UnchangedEditTests {
    @Test("setting a field to the value it has, or moving a step to where it is, bumps no revision and uploads nothing",
          arguments: [
            RecipeChange.title("Soup"), .title("  Soup "), .description("Warm"), .yield("4 servings"),
            .keywords("soup, vegan"), .setIngredient(1, "2 tomatoes"), .moveIngredient(from: 2, to: 2),
            .setStep(1, "Chop."), .moveStep(from: 1, to: 1),
          ])
    func sameValue(change: RecipeChange) throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Soup").id
        for setup: RecipeChange in [
            .description("Warm"), .yield("4 servings"), .keywords("soup,vegan"), .addIngredient("2 tomatoes"),
            .addIngredient("1 onion"), .addStep("Chop."),
        ] {
            try store.apply(setup, to: id)
        }
        try simulateSync("state = 'synced', synced_revision = revision, server_version = 3", of: id, in: store)
        let before = try store.recipe(id: id)
        let outcome = try store.edit(change, of: id)
        #expect(!outcome.changed)
        #expect(outcome.recipe == before)
        #expect(try store.recipe(id: id) == before, "revision, state and date stay: nothing to upload")
        #expect(try store.hasDueWork(at: Date()) == false)
        #expect(try store.edit(.title("Tomato soup"), of: id).changed, "a real change still counts")
        #expect(try store.recipe(id: id).sync.revision == before.sync.revision + 1)
    }

    @Test("attaching the image a recipe already shows changes nothing and leaves no second copy in media/")
    func sameImage() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Bread").id
        let path = dir.file("bread.png", pngBytes(size: 256))
        try store.apply(.setImage(try store.media.stage(from: path)), to: id)
        let before = try store.recipe(id: id)
        #expect(try !store.edit(.setImage(try store.media.stage(from: path)), of: id).changed)
        #expect(try store.recipe(id: id) == before)
        let copies = try FileManager.default.contentsOfDirectory(atPath: dir.home.mediaURL.path).filter { !$0.hasPrefix(".") }
        #expect(copies.count == 1, "\(copies)")
    }
}

func simulateSync(_ assignments: String, of id: Int64, in store: RecipeStore) throws {
    try store.pool.write { db in
        try db.execute(sql: "UPDATE recipes SET \(assignments) WHERE id = ?", arguments: [id])
    }
}
