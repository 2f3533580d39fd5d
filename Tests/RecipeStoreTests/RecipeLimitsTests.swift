import Foundation
import GRDB
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipeStore

@Suite("A recipe's lists are bounded, and an edit is checked for what it changes only")
struct RecipeLimitsTests {
    /// Recipe content with `count` ingredients and one step.
    func content(_ count: Int) -> RecipeContent {
        RecipeContent(title: "Long", ingredients: (1...count).map { "ingredient \($0)" }, steps: ["Mix."])
    }

    @Test("an import, an added or inserted ingredient or step, and a card past the limit are refused, changing nothing")
    func listsAreBounded() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let limit = RecipeLimits.listLength
        #expect(throws: StoreError(.tooManyParts(what: "ingredients", count: limit + 1))) {
            try store.create([.init(content: content(limit + 1))])
        }
        #expect(try store.recipes().isEmpty)
        let id = try #require(try store.create([.init(content: content(limit))]).first).id
        for change in [RecipeChange.addIngredient("one more"), .insertIngredient(1, "one more")] {
            #expect(throws: StoreError(.tooManyParts(what: "ingredients", count: limit + 1))) { try store.apply(change, to: id) }
        }
        var grown = RecipeContent(try store.recipe(id: id))
        grown.ingredients.append("one more")
        #expect(throws: StoreError(.tooManyParts(what: "ingredients", count: limit + 1))) { try store.update(id, to: grown) }
        let unchanged = try store.recipe(id: id)
        #expect(unchanged.ingredients.count == limit && unchanged.sync.revision == 1)
        // Steps alike; a recipe below the limit takes more.
        let steps = try #require(try store.create([.init(content: RecipeContent(
            title: "Steps", steps: (1...limit).map { Step(text: "step \($0)") }))]).first).id
        #expect(throws: StoreError(.tooManyParts(what: "steps", count: limit + 1))) { try store.apply(.addStep("x"), to: steps) }
        try store.apply(.addIngredient("salt"), to: steps)
        #expect(StoreError(.tooManyParts(what: "steps", count: 1001)).errorDescription
            == "the recipe would have 1001 steps; recipes keeps at most 1000 steps per recipe: split it into several recipes")
    }

    @Test("a list a merge made longer than the limit can still be edited, shortened or not grown")
    func mergedLongListStaysEditable() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Merged").id
        let long = (1...(RecipeLimits.listLength + 5)).map { "ingredient \($0)" }
        // Two devices adding to one list may merge into more than either could add.
        _ = try store.write { db in try RecipeStore.replaceParts(of: id, in: "ingredients", with: long, db) }
        var content = RecipeContent(try store.recipe(id: id))
        content.description = "Both sides' additions."
        #expect(throws: Never.self) { try store.update(id, to: content) }
        try #require(!content.ingredients.isEmpty)
        content.ingredients.removeLast()
        #expect(throws: Never.self) { try store.update(id, to: content) }
        #expect(try store.recipe(id: id).ingredients.count == RecipeLimits.listLength + 4)
    }

    @Test("a recipe holding text the store refuses (a pulled escape character, a blank title) saves an edit elsewhere")
    func storedRefusedTextStaysEditable() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Placeholder").id
        // Written as a pull of an earlier version stored it, past the store's rule.
        try store.pool.write { db in
            try db.execute(sql: "UPDATE recipes SET title = ? WHERE id = ?", arguments: ["Soup \u{1B}[31m red", id])
            try db.execute(sql: "INSERT INTO ingredients (recipe_id, position, text) VALUES (?, 1, ?)", arguments: [id, "salt\u{7}"])
        }
        var content = RecipeContent(try store.recipe(id: id))
        content.steps = ["Simmer."]
        guard case .saved(let saved) = try store.update(id, to: content) else {
            Issue.record("the edit was not saved")
            return
        }
        #expect(saved.title == "Soup \u{1B}[31m red" && saved.steps.map(\.text) == ["Simmer."])
        // What the edit changes is still checked.
        content.ingredients.append("pepper\u{1B}")
        #expect(throws: StoreError(.invalidText(field: .ingredient, problem: .controlCharacter(0x1B)))) {
            try store.update(id, to: content)
        }
        content.ingredients.removeLast()
        content.title = "Soup\u{7}"
        #expect(throws: StoreError(.invalidText(field: .title, problem: .controlCharacter(0x07)))) {
            try store.update(id, to: content)
        }
        // A blank title kept as it is, too.
        try store.pool.write { db in try db.execute(sql: "UPDATE recipes SET title = '   ' WHERE id = ?", arguments: [id]) }
        content = RecipeContent(try store.recipe(id: id))
        content.keywords = "soup"
        guard case .saved = try store.update(id, to: content) else {
            Issue.record("the edit of a recipe with a blank title was not saved")
            return
        }
        content.title = "  "
        content.keywords = "stew"
        #expect(throws: StoreError(.emptyTitle)) { try store.update(id, to: content) }
    }
}
