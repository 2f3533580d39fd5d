import Foundation
import GRDB
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipeStore

@Suite("Editing in place, replacing content and importing: one transaction each, revision bumped only on a change")
struct InPlaceEditTests {
    func store(with ingredients: [String], steps: [String] = []) throws -> (RecipeStore, Int64, TemporaryDirectory) {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Soup").id
        for text in ingredients { try store.apply(.addIngredient(text), to: id) }
        for text in steps { try store.apply(.addStep(text), to: id) }
        return (store, id, dir)
    }

    @Test("set, insert and move change the n-th part as show numbers it, each bumping the revision once")
    func setInsertMove() throws {
        let (store, id, directory) = try store(with: ["a", "b", "c"], steps: ["one", "two"])
        defer { withExtendedLifetime(directory) {} }
        try store.apply(.removeIngredient(2), to: id)  // leaves a gap in the positions: a, c
        var revision = try store.recipe(id: id).sync.revision
        let changes: [(RecipeChange, [String], [String])] = [
            (.setIngredient(2, "C"), ["a", "C"], ["one", "two"]),
            (.insertIngredient(1, "first"), ["first", "a", "C"], ["one", "two"]),
            (.insertIngredient(4, "last"), ["first", "a", "C", "last"], ["one", "two"]),
            (.insertIngredient(3, "mid"), ["first", "a", "mid", "C", "last"], ["one", "two"]),
            (.moveIngredient(from: 1, to: 5), ["a", "mid", "C", "last", "first"], ["one", "two"]),
            (.moveIngredient(from: 4, to: 2), ["a", "last", "mid", "C", "first"], ["one", "two"]),
            (.setStep(1, "ONE"), ["a", "last", "mid", "C", "first"], ["ONE", "two"]),
            (.insertStep(2, "between"), ["a", "last", "mid", "C", "first"], ["ONE", "between", "two"]),
            (.moveStep(from: 3, to: 1), ["a", "last", "mid", "C", "first"], ["two", "ONE", "between"]),
        ]
        for (change, ingredients, steps) in changes {
            let recipe = try store.apply(change, to: id)
            revision += 1
            #expect(recipe.ingredients.map(\.text) == ingredients, "\(change)")
            #expect(recipe.steps.map(\.text) == steps, "\(change)")
            #expect(recipe.sync.revision == revision && recipe.sync.state == .pending, "\(change)")
        }
    }

    @Test("an out-of-range number names the range and changes nothing")
    func outOfRange() throws {
        let (store, id, directory) = try store(with: ["a", "b"])
        defer { withExtendedLifetime(directory) {} }
        let before = try store.recipe(id: id)
        let cases: [(RecipeChange, String)] = [
            (.setIngredient(3, "x"), "recipe \(id) has no ingredient 3; choose 1 to 2"),
            (.insertIngredient(4, "x"), "recipe \(id) has no ingredient 4; choose 1 to 3"),
            (.moveIngredient(from: 1, to: 3), "recipe \(id) has no ingredient 3; choose 1 to 2"),
            (.moveIngredient(from: 0, to: 1), "recipe \(id) has no ingredient 0; choose 1 to 2"),
            (.setStep(1, "x"), "recipe \(id) has no step 1; it has none"),
            (.moveStep(from: 1, to: 1), "recipe \(id) has no step 1; it has none"),
        ]
        for (change, message) in cases {
            #expect(performing: { try store.apply(change, to: id) }, throws: { error in
                (error as? StoreError)?.errorDescription == message
            })
        }
        #expect(try store.recipe(id: id) == before)
        #expect(try store.apply(.insertStep(1, "only"), to: id).steps.map(\.text) == ["only"])
    }

    @Test("replacing content with equal content writes nothing; a change writes only it, in one revision")
    func updateContent() throws {
        let (store, id, directory) = try store(with: ["2 tomatoes", "1 onion"], steps: ["Chop.", "Simmer."])
        defer { withExtendedLifetime(directory) {} }
        let before = try store.recipe(id: id)
        let same = RecipeContent(before)
        #expect(try store.update(id, to: same, expectingRevision: before.sync.revision) == .unchanged(before))
        #expect(try store.recipe(id: id).sync.revision == before.sync.revision)

        var changed = same
        changed.title = "Tomato soup"
        changed.ingredients = ["3 tomatoes", "1 onion", "salt"]
        changed.steps = ["Chop."]
        guard case .saved(let saved) = try store.update(id, to: changed, expectingRevision: before.sync.revision) else {
            Issue.record("not saved")
            return
        }
        #expect(RecipeContent(saved) == changed)
        #expect(saved.sync.revision == before.sync.revision + 1 && saved.sync.state == .pending)

        // Written at an older revision: nothing is written, the current recipe comes back for a merge.
        var stale = changed
        stale.title = "Stale"
        #expect(try store.update(id, to: stale, expectingRevision: before.sync.revision) == .changedMeanwhile(saved))
        #expect(try store.recipe(id: id) == saved)
        #expect(throws: StoreError(.emptyTitle)) { try store.update(id, to: RecipeContent(title: " "), expectingRevision: nil) }
    }

    @Test("create(_:) makes every recipe of an import in one transaction, pending at revision 1, with a remote image URL")
    func createMany() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let made = try store.create([
            .init(content: RecipeContent(title: "A", keywords: "x,y", ingredients: ["1", "2"], steps: ["s"])),
            .init(content: RecipeContent(title: "B"), remoteImageURL: "https://example.com/b.jpg"),
        ])
        #expect(made.map(\.id) == [1, 2])
        try #require(made.count == 2)
        #expect(made.allSatisfy { $0.sync.revision == 1 && $0.sync.state == .pending })
        #expect(RecipeContent(try store.recipe(id: 1)) == RecipeContent(title: "A", keywords: "x,y", ingredients: ["1", "2"], steps: ["s"]))
        #expect(made[1].sync.remoteImageURL == "https://example.com/b.jpg" && made[1].image == nil)
        #expect(throws: StoreError(.emptyTitle)) { try store.create([.init(content: RecipeContent(title: "C")), .init(content: RecipeContent(title: ""))]) }
        #expect(try store.count() == 2, "a failed import of several recipes creates none")
    }
}
