import Foundation
import GRDB
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipeStore

@Suite("Full-text search: ranked, matched words shown, the index kept in the transaction of every change")
struct SearchTests {
    @Test("words become quoted prefix terms ANDed together; field:word limits a word; bad input is refused")
    func queryExpression() throws {
        #expect(try SearchQuery.expression(for: ["tom", "soup"]) == #""tom"* "soup"*"#)
        #expect(try SearchQuery.expression(for: ["title:soup", "ingredient:\"x"]) == #"title : "soup"* ingredients : """x"*"#)
        #expect(try SearchQuery.expression(for: ["OR", "NEAR(a"]) == #""OR"* "NEAR(a"*"#)
        #expect(throws: SearchQueryError.self) { try SearchQuery.expression(for: ["-", "*"]) }
        #expect(performing: { try SearchQuery.expression(for: ["colour:red"]) }, throws: { error in
            (error as? SearchQueryError)?.message.hasPrefix("unknown field \"colour\"") == true
        })
    }

    @Test("finds by any field, best (title) first, with fields, matched words and a snippet")
    func rankedHits() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        _ = try store.create([
            .init(content: RecipeContent(title: "Bread", ingredients: ["1 tomato for the top"], steps: ["Bake."])),
            .init(content: RecipeContent(title: "Tomato soup", keywords: "soup,vegan", ingredients: ["800 g tomatoes"])),
            .init(content: RecipeContent(title: "Salad", description: "Crème fraîche dressing")),
        ])
        let result = try store.search(["tomato"])
        #expect(result.total == 2)
        #expect(result.hits.map(\.id) == [2, 1])
        try #require(result.hits.count == 2)
        #expect(result.hits[0].fields == [.title, .ingredients])
        #expect(result.hits[0].matchedWords == ["Tomato", "tomatoes"])
        #expect(result.hits[1].snippet.contains("\(SearchHit.markStart)tomato\(SearchHit.markEnd)"))
        #expect(try store.search(["creme", "fraich"]).hits.map(\.id) == [3], "diacritics and prefixes")
        #expect(try store.search(["title:tomato"]).hits.map(\.id) == [2])
        #expect(try store.search(["tomato", "bake"]).hits.map(\.id) == [1], "every word must match")
        #expect(try store.search(["tomato"], limit: 1).hits.count == 1)
    }

    @Test("every kind of edit, a deletion and a removal update the index in the same transaction")
    func indexFollowsEdits() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Soup").id
        func found(_ word: String) throws -> Bool { try store.search([word]).hits.map(\.id) == [id] }
        try store.apply(.addIngredient("parsnip"), to: id)
        #expect(try found("parsnip"))
        try store.apply(.setIngredient(1, "celeriac"), to: id)
        #expect(try !found("parsnip") && found("celeriac"))
        try store.apply(.addStep("Roast the celeriac"), to: id)
        try store.apply(.title("Winter soup"), to: id)
        try store.apply(.keywords("hearty"), to: id)
        try store.apply(.description("Smoky"), to: id)
        #expect(try found("winter") && found("hearty") && found("smoky") && found("roast"))
        try store.apply(.removeStep(1), to: id)
        #expect(try !found("roast"))
        var content = RecipeContent(try store.recipe(id: id))
        content.ingredients = ["turnip"]
        _ = try store.update(id, to: content)
        #expect(try !found("celeriac") && found("turnip"))
        // A recipe the server has is kept as `deleting` and no longer found; one it never had is gone at once.
        try store.pool.write { db in try db.execute(sql: "UPDATE recipes SET synced_revision = 1 WHERE id = ?", arguments: [id]) }
        try store.delete(id)
        #expect(try store.search(["turnip"]).total == 0)
        // Brought back (as resolving a deletion conflict may): found again, with its parts.
        try store.pool.write { db in try db.execute(sql: "UPDATE recipes SET deleted = 0, state = 'pending' WHERE id = ?", arguments: [id]) }
        #expect(try found("turnip") && found("roast") == false && found("winter"))
        let other = try store.create(title: "Gone soon").id
        try store.delete(other)
        #expect(try store.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM recipe_search WHERE rowid = ?", arguments: [other]) } == 0)
    }

    @Test("a change that writes many ingredients and steps rebuilds the recipe's index entry once, not once per row")
    func indexRefreshedOncePerChange() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let count = 400
        let content = RecipeContent(
            title: "Long", ingredients: (1...count).map { "ingredient \($0)" }, steps: (1...count).map { Step(text: "step \($0)") })
        // sqlite3_total_changes counts the rows every statement wrote, trigger programs included: a rebuild of the
        // recipe's lists per row written (the trigger of migration 0004) adds at least one per row.
        func changes() throws -> Int { try store.peek { db in db.totalChangesCount } }
        let beforeCreate = try changes()
        let id = try #require(try store.create([.init(content: content)]).first).id
        #expect(try changes() - beforeCreate <= 2 * count + 50, "rows written: the recipe, its parts, one refresh")
        let beforeInsert = try changes()
        try store.apply(.insertIngredient(1, "salt"), to: id)
        #expect(try changes() - beforeInsert <= count + 50, "every ingredient moved down one place, one refresh")
        let indexed = try store.pool.read { db in
            try Row.fetchOne(db, sql: "SELECT ingredients, steps FROM recipe_search WHERE rowid = ?", arguments: [id])
        }
        let ingredients: String? = indexed?["ingredients"], steps: String? = indexed?["steps"]
        #expect(ingredients == (["salt"] + content.ingredients).joined(separator: "\n"))
        #expect(steps == content.steps.map(\.text).joined(separator: "\n"))
        #expect(try store.search(["ingredients:salt", "steps:399"]).hits.map(\.id) == [id])
        #expect(try store.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM recipe_search_stale") } == 0)
    }

    @Test("the migration indexes the recipes of a home made before it")
    func migrationIndexesExistingHome() throws {
        let dir = TemporaryDirectory()
        let older = Migration.embedded.filter { $0.identifier < "0004" }
        // A home of that schema, written as a binary of then wrote it (this binary's edits need the newer columns).
        do { _ = try RecipeStore(home: dir.home, migrations: older) }
        let queue = try DatabaseQueue(path: dir.home.databaseURL.path)
        let id: Int64 = try queue.write { db in
            try db.execute(sql: """
                INSERT INTO recipes (uuid, title, revision, state, created_at, updated_at)
                VALUES ('0f8fad5b-d9cb-469f-a165-70867728950e', 'Old bread', 3, 'pending', 0, 0)
                """)
            let id = db.lastInsertedRowID
            try db.execute(sql: "INSERT INTO ingredients (recipe_id, position, text) VALUES (?, 1, 'rye flour')", arguments: [id])
            try db.execute(sql: "INSERT INTO steps (recipe_id, position, text) VALUES (?, 1, 'Knead well')", arguments: [id])
            return id
        }
        try queue.close()
        let new = try RecipeStore(home: dir.home)
        #expect(try new.appliedMigrations().contains("0004_search"))
        let hit = try #require(try new.search(["rye", "knead"]).hits.first)
        #expect(hit.id == id && hit.fields == [.ingredients, .steps])
    }
}
