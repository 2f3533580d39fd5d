import Foundation
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipeStore

@Suite("An edit of a conflicting field settles that conflict; list conflicts follow their elements")
struct SettleByEditTests {
    @Test("setting the title settles the title conflict only; the recipe stays in conflict until the last one goes")
    func titleEditSettles() throws {
        let home = try ConflictFixture()
        try home.fieldConflict()
        let recipe = try home.store.apply(.title("Fish stew"), to: home.id)
        #expect(recipe.sync.conflict.map { $0.statusEntries.map(\.field) } == ["ingredient 2"])
        #expect(recipe.sync.effectiveState(at: ConflictFixture.now) == .conflict)
        #expect(try !home.isDue())
        let settled = try home.store.apply(.setIngredient(2, "B3"), to: home.id)
        #expect(settled.sync.conflict == nil && settled.sync.state == .pending)
        #expect(settled.sync.serverVersion == 2, "still based on the version it was merged against")
        #expect(try home.isDue())
    }

    @Test("an edit elsewhere in the list renumbers a list conflict; one that touches it settles it")
    func listConflictRenumbered() throws {
        let home = try ConflictFixture()
        try home.fieldConflict()
        let inserted = try home.store.apply(.insertIngredient(1, "salt"), to: home.id)
        guard case .fields(let conflicts) = try #require(inserted.sync.conflict) else {
            Issue.record("not a field conflict")
            return
        }
        #expect(conflicts.map(\.field.name) == ["title", "ingredient 3"])
        try #require(conflicts.count > 1)
        #expect(conflicts[1].mine == .text("B1") && conflicts[1].theirs == .text("B2"))
        #expect(inserted.ingredients.map(\.text) == ["salt", "a", "B1", "c"])
        let appended = try home.store.apply(.addStep("serve"), to: home.id)
        #expect(appended.sync.conflict == inserted.sync.conflict, "an edit of another field leaves the conflicts as they are")
        let removed = try home.store.apply(.removeIngredient(3), to: home.id)
        #expect(removed.sync.conflict.map { $0.statusEntries.map(\.field) } == ["title"])
    }

    @Test("the editor's save (one content update) settles what it changed")
    func contentUpdateSettles() throws {
        let home = try ConflictFixture()
        try home.fieldConflict()
        var content = RecipeContent(try home.recipe())
        content.title = "Broth"
        guard case .saved(let saved) = try home.store.update(home.id, to: content) else {
            Issue.record("not saved")
            return
        }
        #expect(saved.sync.conflict.map { $0.statusEntries.map(\.field) } == ["ingredient 2"])
    }

    @Test("a deletion conflict is not settled by an edit: the edit is kept, the conflict stays")
    func deletionConflictStays() throws {
        let home = try ConflictFixture()
        try home.store.apply(.title("Stew"), to: home.id)
        try home.pull(.deleted(version: 2))
        let before = try home.recipe()
        let edited = try home.store.apply(.description("still wanted"), to: home.id)
        #expect(edited.sync.conflict == .deletedOnServer && edited.sync.revision == before.sync.revision + 1)
        #expect(try !home.isDue())
    }
}
