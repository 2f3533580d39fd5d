import Foundation
import GRDB
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipeStore

@Suite("Resolving conflicts in the store: each choice, a few fields at a time, and refusals that change nothing")
struct ResolveTests {
    @Test("--theirs for everything: the server's fields, equal to its copy, so synced at its version without a push")
    func theirsEverything() throws {
        let home = try ConflictFixture()
        try home.fieldConflict()
        let before = try home.recipe()
        let resolved = try home.store.resolve(id: home.id, side: .theirs)
        #expect(resolved.settled == ["title", "ingredient 2"] && resolved.left == nil && resolved.state == .synced)
        let after = try home.recipe()
        #expect(RecipeFields(after) == ConflictFixture.theirs)
        #expect(after.sync.revision == before.sync.revision + 1 && after.sync.syncedRevision == after.sync.revision)
        #expect(after.sync.effectiveState(at: ConflictFixture.now) == .synced)
        #expect(after.sync.serverVersion == 2 && after.sync.conflict == nil)
        #expect(try !home.isDue())
    }

    @Test("--mine for everything: the draft kept, pending at the next revision, based on version 2, due")
    func mineEverything() throws {
        let home = try ConflictFixture()
        try home.fieldConflict()
        let before = try home.recipe()
        let resolved = try home.store.resolve(id: home.id, side: .mine)
        #expect(resolved.state == .pending && resolved.left == nil)
        let after = try home.recipe()
        #expect(RecipeFields(after) == RecipeFields(before))
        #expect(after.title == "Stew" && after.ingredients.map(\.text) == ["a", "B1", "c"])
        #expect(after.sync.revision == before.sync.revision + 1 && after.sync.state == .pending)
        #expect(after.sync.serverVersion == 2 && after.sync.base == ConflictFixture.theirs)
        #expect(try home.isDue())
    }

    @Test("one field at a time: the rest stays in conflict (not due); the last choice ends it, synced when equal to the server's")
    func fieldByField() throws {
        let home = try ConflictFixture()
        try home.fieldConflict()
        let first = try home.store.resolve(id: home.id, side: .theirs, only: ["title"])
        #expect(first.settled == ["title"])
        #expect(first.left.map { $0.statusEntries.map(\.field) } == ["ingredient 2"])
        #expect(first.state == .conflict)
        #expect(try home.recipe().title == "Broth")
        #expect(try !home.isDue())
        let second = try home.store.resolve(id: home.id, side: .theirs, only: ["ingredients"])
        #expect(second.settled == ["ingredient 2"] && second.left == nil && second.state == .synced)
        #expect(RecipeFields(try home.recipe()) == ConflictFixture.theirs)
    }

    @Test("a field chosen as mine and the other as theirs: pending, the mixed draft sent by the next sync")
    func mixedChoice() throws {
        let home = try ConflictFixture()
        try home.fieldConflict()
        _ = try home.store.resolve(id: home.id, side: .mine, only: ["title"])
        let last = try home.store.resolve(id: home.id, side: .theirs, only: ["ingredient 2"])
        #expect(last.state == .pending)
        let after = try home.recipe()
        #expect(after.title == "Stew" && after.ingredients.map(\.text) == ["a", "B2", "c"])
        #expect(try home.isDue())
    }

    @Test("refusals: unknown id, no conflict, an unknown or not-conflicting field, a live sync's lease; nothing changes")
    func refusals() throws {
        let home = try ConflictFixture()
        let plain = try home.store.create(title: "Bread").id
        try home.fieldConflict()
        let before = try home.recipe()
        func refused(_ expected: String, _ body: () throws -> Void) throws {
            do {
                try body()
                Issue.record("not refused: \(expected)")
            } catch let error as StoreError {
                #expect(error.errorDescription == expected)
            }
            #expect(try home.recipe() == before)
        }
        try refused("no recipe with id 99; `list` shows the ids") { _ = try home.store.resolve(id: 99, side: .mine) }
        try refused("recipe \(plain) has no conflict to resolve; `recipes conflicts` lists the recipes that do") {
            _ = try home.store.resolve(id: plain, side: .theirs)
        }
        try refused(try #require(ConflictError.unknownField("colour").errorDescription)) {
            _ = try home.store.resolve(id: home.id, side: .mine, only: ["title", "colour"])
        }
        try refused("step 1 is not in conflict; the conflicting fields are: title, ingredient 2") {
            _ = try home.store.resolve(id: home.id, side: .theirs, only: ["step 1"])
        }
        // Another live process leases the recipe (an explicit sync claims even a recipe in conflict).
        let held = try home.store.claim(ids: [home.id], owner: "200:2", now: ConflictFixture.now, leaseDuration: 60,
                                        isOwnerAlive: ConflictFixture.alive)
        #expect(held.claims.count == 1)
        let leased = try home.recipe()
        do {
            _ = try home.store.resolve(id: home.id, side: .mine, isOwnerAlive: ConflictFixture.alive)
            Issue.record("a recipe leased by a live process was resolved")
        } catch {
            #expect(error.errorDescription == "recipe \(home.id) is being uploaded or pulled by pid 200 right now; resolve it once that sync has ended")
        }
        #expect(try home.recipe() == leased)
        // Once that process is gone, its lease no longer stands in the way.
        #expect(try home.store.resolve(id: home.id, side: .mine, isOwnerAlive: { _ in false }).state == .pending)
    }

    @Test("deleted on the server, --mine: pending, based on the tombstone's version (pushed as tombstone + 1)")
    func recreate() throws {
        let home = try ConflictFixture()
        try home.store.apply(.title("Stew"), to: home.id)
        #expect(try home.pull(.deleted(version: 2)) == .conflict(.deletedOnServer))
        #expect(try home.recipe().sync.effectiveState(at: ConflictFixture.now) == .conflict)
        let resolved = try home.store.resolve(id: home.id, side: .mine)
        #expect(resolved.resolution == .recreateOnServer && resolved.settled == ["recipe"] && resolved.state == .pending)
        let after = try home.recipe()
        #expect(after.title == "Stew" && after.sync.serverVersion == 2 && after.sync.base == nil && !after.sync.deleted)
        #expect(try home.isDue())
    }

    @Test("deleted on the server, --theirs: the recipe goes here; its media copy stays while its history names it (undo)")
    func removeHere() throws {
        let home = try ConflictFixture(withImage: true)
        #expect(home.mediaFiles().count == 1)
        #expect(try home.pull(.deleted(version: 2)) == .conflict(.deletedOnServer))
        let resolved = try home.store.resolve(id: home.id, side: .theirs)
        #expect(resolved.resolution == .removeHere && resolved.state == nil && resolved.title == "Soup")
        #expect(throws: StoreError(.unknownRecipe(id: home.id))) { try home.store.recipe(id: home.id) }
        #expect(home.mediaFiles().count == 1, "`recipes undo` may bring the recipe back, image and all")
        #expect(try home.store.undo(home.id).recipe.image?.localFileName == home.mediaFiles().first)
    }

    @Test("deleted here, --mine: still deleting, due again (a DELETE of the server's version 2)")
    func deleteOnServer() throws {
        let home = try ConflictFixture()
        try home.store.delete(home.id)
        #expect(try home.pull(.live(version: 2, fields: ConflictFixture.theirs)) == .conflict(.deletedHere))
        #expect(try !home.isDue())
        let resolved = try home.store.resolve(id: home.id, side: .mine)
        #expect(resolved.resolution == .deleteOnServer && resolved.state == .deleting)
        let after = try home.recipe()
        #expect(after.sync.deleted && after.sync.serverVersion == 2 && after.sync.conflict == nil)
        #expect(try home.isDue())
    }

    @Test("deleted here, --theirs: the deletion undone, the server's fields taken, synced at version 2 with no push")
    func restoreFromServer() throws {
        let home = try ConflictFixture()
        try home.store.delete(home.id)
        #expect(try home.pull(.live(version: 2, fields: ConflictFixture.theirs)) == .conflict(.deletedHere))
        let resolved = try home.store.resolve(id: home.id, side: .theirs)
        #expect(resolved.resolution == .restoreFromServer && resolved.state == .synced)
        let after = try home.recipe()
        #expect(RecipeFields(after) == ConflictFixture.theirs && !after.sync.deleted && after.sync.serverVersion == 2)
        #expect(after.sync.syncedRevision == after.sync.revision)
        #expect(try !home.isDue())
        try home.store.apply(.yield("2 bowls"), to: home.id)  // editable again
    }

    @Test("a deletion conflict is resolved whole: --field is refused in words")
    func deletionIsWhole() throws {
        let home = try ConflictFixture()
        try home.store.apply(.title("Stew"), to: home.id)
        try home.pull(.deleted(version: 2))
        let wholeOnly = try #require(ConflictError.deletionIsWhole.errorDescription)
        #expect(throws: StoreError(.resolution(detail: wholeOnly))) {
            try home.store.resolve(id: home.id, side: .mine, only: ["title"])
        }
        #expect(try home.recipe().sync.conflict == .deletedOnServer)
    }

    @Test("a stored conflict that cannot be read: --field is refused in words, a whole --mine keeps the draft, pending")
    func unreadableConflict() throws {
        let home = try ConflictFixture()
        try home.fieldConflict()
        // The conflicts column as no version of recipes writes it (a damaged or foreign value).
        try home.store.write { db in
            try db.execute(sql: "UPDATE recipes SET conflicts = '{\"kind\":\"colour\"}' WHERE id = ?", arguments: [home.id])
        }
        #expect(try !home.isDue(), "still held back: the column says there is a conflict")
        let unreadable = try #require(ConflictError.unreadable("unknown kind 'colour'").errorDescription)
        #expect(throws: StoreError(.resolution(detail: unreadable))) {
            try home.store.resolve(id: home.id, side: .mine, only: ["title"])
        }
        let resolved = try home.store.resolve(id: home.id, side: .mine)
        #expect(resolved.settled == ["recipe"] && resolved.state == .pending)
        let after = try home.recipe()
        #expect(after.title == "Stew" && after.sync.serverVersion == 2)
        #expect(try home.isDue())
    }
}
