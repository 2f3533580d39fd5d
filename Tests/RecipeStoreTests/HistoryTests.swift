import Foundation
import GRDB
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipeStore

@Suite("Each revision's content is kept in the change's own transaction, and undo brings one back as a new revision")
struct HistoryTests {
    @Test("every change writes its revision's whole content, where it came from, in its own transaction; a failed one writes nothing")
    func editsWriteHistory() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Soup").id
        try store.apply(.title("Tomato soup"), to: id)
        try store.apply(.addIngredient("2 tomatoes"), to: id)
        #expect(throws: StoreError.self) { try store.apply(.removeIngredient(5), to: id) }
        _ = try store.edit(.title("Tomato soup"), of: id)  // the title it has: no revision, no history
        let history = try store.history(of: id)
        #expect(history.map(\.revision) == [1, 2, 3])
        #expect(history.map(\.origin) == [.new, .edit, .edit])
        #expect(history.map(\.command) == [nil, "title", "ingredient add"])
        #expect(history.last?.fields == RecipeFields(try store.recipe(id: id)), "the whole content of the newest revision")
        let marks = try store.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM recipe_history_due") }
        #expect(marks == 0, "the marks are cleared before each commit")
    }

    @Test("a change rolled back takes its history row with it: the row is written inside the change's transaction")
    func historyRollsBackWithTheChange() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Soup").id
        #expect(throws: StoreError.self) {
            try store.write { db in
                try db.execute(sql: "UPDATE recipes SET title = 'Broth', revision = revision + 1 WHERE id = ?", arguments: [id])
                try RecipeStore.recordHistory(db, now: Date())
                #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM recipe_history") == 2, "written in the transaction")
                throw StoreError(.emptyTitle)
            }
        }
        #expect(try store.history(of: id).map(\.fields.title) == ["Soup"])
    }

    @Test("an import says so: a new recipe and one a page updates are both `import` revisions")
    func importsWriteHistory() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let page = RecipeStore.NewRecipe(content: RecipeContent(title: "Pie", ingredients: ["apples"]))
        let id = try #require(try store.importRecipes([ImportWrite(recipe: page)]).first).recipe.id
        var again = page
        again.content.ingredients.append("butter")
        _ = try store.importRecipes([ImportWrite(recipe: again, replacing: id)])
        let history = try store.history(of: id)
        #expect(history.map(\.origin) == [.import, .import] && history.map(\.revision) == [1, 2])
        #expect(RevisionChanges.between(history[0].fields, history[1].fields) == ["1 ingredient added"])
    }

    @Test("only the newest 50 revisions of a recipe are kept")
    func historyIsBounded() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Soup").id
        for n in 1...60 { try store.apply(.yield("\(n) bowls"), to: id) }
        let history = try store.history(of: id)
        #expect(history.count == RecipeStore.historyLimit)
        #expect(history.first?.revision == 12 && history.last?.revision == 61)
    }

    @Test("the histories of the 200 recipes deleted last are kept; the one deleted longest ago goes")
    func deletedHistoriesAreBounded() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let made = try store.create((0...RecipeStore.deletedHistoryLimit).map {
            RecipeStore.NewRecipe(content: RecipeContent(title: "Recipe \($0)"))
        })
        try store.write { db in try db.execute(sql: "DELETE FROM recipes") }
        let deleted = try store.deletedRecipes()
        #expect(deleted.count == RecipeStore.deletedHistoryLimit)
        #expect(!deleted.contains { $0.recipeID == made[0].id } && deleted.contains { $0.recipeID == made[1].id })
        #expect(try store.history(of: made[0].id).isEmpty)
    }

    @Test("undo writes the previous content as a new revision, pending upload; again goes one further back")
    func undoIsANewRevision() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Soup").id
        try store.apply(.addIngredient("water"), to: id)
        try simulateSync("state = 'synced', synced_revision = revision, server_version = 1", of: id, in: store)
        try store.apply(.title("Broth"), to: id)
        let first = try store.undo(id)
        #expect(first.restoredRevision == 2 && first.recipe.sync.revision == 4 && first.recipe.sync.state == .pending)
        #expect(first.recipe.title == "Soup" && first.recipe.ingredients.map(\.text) == ["water"])
        let second = try store.undo(id)
        #expect(second.restoredRevision == 1 && second.recipe.sync.revision == 5 && second.recipe.ingredients.isEmpty)
        #expect(throws: StoreError.self) { try store.undo(id) }
        let redo = try store.undo(id, toRevision: 3)
        #expect(redo.recipe.title == "Broth" && redo.recipe.ingredients.map(\.text) == ["water"])
        let newest = try #require(try store.history(of: id).last)
        #expect(newest.origin == .undo && newest.revision == 6)
    }

    @Test("a recipe the server never had, deleted, comes back under its id and uuid, new to the server")
    func undoRecreatesARemovedRecipe() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let recipe = try store.create(title: "Cake")
        try store.apply(.addStep("Bake."), to: recipe.id)
        #expect(try store.delete(recipe.id), "removed at once")
        #expect(try store.deletedRecipes().map(\.recipeID) == [recipe.id])
        #expect(try store.recipeIDWithHistory(.title("cake")) == recipe.id, "named by the title it had")
        let back = try store.undo(recipe.id)
        #expect(back.recreated && back.recipe.id == recipe.id && back.recipe.uuid == recipe.uuid)
        #expect(back.recipe.steps.map(\.text) == ["Bake."] && back.recipe.sync.revision == 4)
        #expect(back.recipe.sync.serverVersion == nil && back.recipe.sync.state == .pending)
        #expect(try store.deletedRecipes().isEmpty)
    }

    @Test("a deleted recipe's image, and one an edit replaced, stay in media/ while a revision names them: undo brings them back")
    func undoKeepsImages() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let recipe = try store.create(title: "Cake")
        let first = dir.file("a.png", pngBytes(size: 256)), second = dir.file("b.png", pngBytes(size: 300))
        try store.apply(.setImage(try store.media.stage(from: first)), to: recipe.id)
        let firstImage = try #require(try store.recipe(id: recipe.id).image)
        try store.apply(.setImage(try store.media.stage(from: second)), to: recipe.id)
        #expect(try store.delete(recipe.id), "removed at once")
        try store.collectGarbage()
        try store.collectImageGarbage()
        let files = try FileManager.default.contentsOfDirectory(atPath: store.media.directory.path).filter { !$0.hasPrefix(".") }
        #expect(files.count == 2, "both copies kept while the history names them: \(files)")
        let back = try store.undo(recipe.id)
        #expect(!back.imageKept && back.recipe.image?.sha256 != firstImage.sha256 && back.recipe.image != nil)
        let earlier = try store.undo(recipe.id)
        #expect(!earlier.imageKept && earlier.recipe.image?.sha256 == firstImage.sha256, "the image before the last edit")
    }

    @Test("a deletion the server confirmed: undo bases the recipe on the tombstone, one version above the one deleted")
    func undoAfterConfirmedDeletion() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Bread").id
        try simulateSync("state = 'synced', synced_revision = 1, sent_revision = 1, server_version = 3", of: id, in: store)
        #expect(try !store.delete(id), "kept until the server confirms")
        try store.write { db in try db.execute(sql: "DELETE FROM recipes WHERE id = ?", arguments: [id]) }  // confirmed
        #expect(try store.deletedRecipes().first?.tombstone == 4)
        let back = try store.undo(id)
        #expect(back.recipe.sync.serverVersion == 4 && back.recipe.sync.state == .pending && !back.recipe.sync.deleted)
        #expect(back.recipe.sync.revision == 3, "one revision above the deletion's (2), marked for upload with it")
    }

    @Test("undo of a deletion the server has not confirmed: one revision more, pending, no longer deleted, in one change")
    func undoBeforeTheDeletionSynced() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Bread").id
        try simulateSync("state = 'synced', synced_revision = 1, sent_revision = 1, server_version = 3", of: id, in: store)
        #expect(try !store.delete(id), "kept as deleting until the server confirms")
        let deleting = try store.recipe(id: id)
        #expect(deleting.sync.deleted && deleting.sync.revision == 2)
        let back = try store.undo(id)
        #expect(back.recipe.sync.revision == 3 && back.recipe.sync.state == .pending && !back.recipe.sync.deleted)
        #expect(back.recipe.sync.serverVersion == 3, "still based on the server's copy: nothing is deleted there")
        #expect(try store.history(of: id).last?.revision == 3, "its history row written with it")
    }

    @Test("pulls say where a revision came from, and a deletion on the server undone here is based on its tombstone")
    func pulledAndRemovedOnServer() throws {
        let home = try ConflictFixture()
        var theirs = ConflictFixture.base
        theirs.title = "Broth"
        #expect(try home.pull(.live(version: 2, fields: theirs)) == .replaced)
        let pulled = try #require(try home.store.history(of: home.id).suffix(2).first)
        let newest = try #require(try home.store.history(of: home.id).last)
        #expect(newest.origin == .pull && RevisionChanges.between(pulled.fields, newest.fields) == ["title"])
        let other = try ConflictFixture()
        try other.store.apply(.yield("2 bowls"), to: other.id)
        #expect(try other.pull(.deleted(version: 2)) == .conflict(.deletedOnServer))
        _ = try other.store.resolve(id: other.id, side: .theirs)
        let deletion = try #require(try other.store.deletedRecipes().first)
        #expect(deletion.tombstone == 2 && deletion.origin == .resolve)
        let back = try other.store.undo(other.id)
        #expect(back.recreated && back.recipe.sync.serverVersion == 2 && back.recipe.sync.state == .pending)
    }

    @Test("a home from before history keeps each recipe as it was as its first revision, so its next edit can be undone")
    func upgradeSeedsHistory() throws {
        let dir = TemporaryDirectory()
        let older = Array(Migration.embedded.prefix { $0.identifier != RecipeStore.historyMigration })
        let before = try RecipeStore(home: dir.home, migrations: older)
        let id = try before.create(title: "Soup").id
        try before.apply(.addIngredient("salt"), to: id)
        let store = try RecipeStore(home: dir.home)
        #expect(try store.history(of: id).map(\.origin) == [.earlier])
        try store.apply(.title("Broth"), to: id)
        #expect(try store.undo(id).recipe.title == "Soup")
    }
}
