import Foundation
import GRDB
import RecipeModels
import RecipeStore
import RecipesTestSupport
import Testing

@Suite("The store's side of a pull: a page of the changes feed applied in one transaction")
struct PullApplyTests {
    /// "Soup" synced at version 1 as a home migrated from before two-way sync has it: the version known, the fields
    /// it is based on not (the column was added empty).
    static func migratedHome() throws -> ConflictFixture {
        let fixture = try ConflictFixture()
        let queue = try DatabaseQueue(path: fixture.store.home.databaseURL.path)
        try queue.write { db in try db.execute(sql: "UPDATE recipes SET base_fields = NULL") }
        try queue.close()
        return fixture
    }

    @Test("a migrated recipe learns its base from the first pull's copy at its own version, and a later change then merges three ways")
    func migratedBaseRecovered() throws {
        let fixture = try Self.migratedHome()
        #expect(try fixture.recipe().sync.base == nil)
        #expect(try fixture.pull(.live(version: 1, fields: ConflictFixture.base)) == .unchanged)
        let recovered = try fixture.recipe()
        #expect(recovered.sync.base == ConflictFixture.base)
        #expect(recovered.sync.state == .synced && recovered.sync.revision == recovered.sync.syncedRevision)

        // The title changed here, ingredient 2 on the server: with the base known, both survive, no conflict.
        try fixture.store.apply(.title("Stew"), to: fixture.id)
        let theirs = RecipeFields(title: "Soup", ingredients: ["a", "B2", "c"], steps: ["boil"])
        #expect(try fixture.pull(.live(version: 2, fields: theirs)) == .merged(pending: true))
        let merged = try fixture.recipe()
        #expect(merged.title == "Stew" && merged.ingredients.map(\.text) == ["a", "B2", "c"])
        #expect(merged.sync.conflict == nil && merged.sync.serverVersion == 2)
    }

    @Test("without its base a migrated recipe edited here meets a newer server copy as a conflict, never a silent overwrite")
    func unknownBaseConflicts() throws {
        let fixture = try Self.migratedHome()
        try fixture.store.apply(.title("Stew"), to: fixture.id)
        let theirs = RecipeFields(title: "Broth", ingredients: ["a", "b", "c"], steps: ["boil"])
        guard case .conflict(.fields(let conflicts)) = try fixture.pull(.live(version: 2, fields: theirs)) else {
            Issue.record("no conflict")
            return
        }
        #expect(conflicts.map(\.field.name) == ["title"])
        #expect(try fixture.recipe().title == "Stew", "the draft keeps mine")
    }

    @Test("a change not newer than the recipe's server version changes nothing, and a page releases only its own leases")
    func olderChangesAndLeases() throws {
        let fixture = try ConflictFixture()
        let other = try fixture.store.create(title: "Other")
        // This process holds a lease on another recipe (the next page's, leased while this one downloads).
        _ = try fixture.store.claim(
            ids: [other.id], owner: ConflictFixture.me, now: ConflictFixture.now, leaseDuration: 60,
            isOwnerAlive: ConflictFixture.alive)
        let before = try fixture.recipe()
        let stale = PulledChange(uuid: fixture.uuid, copy: .live(version: 1, fields: ConflictFixture.theirs), seq: 7)
        let applied = try fixture.store.applyPage([stale], through: 7, owner: ConflictFixture.me, releasing: [fixture.uuid])
        #expect(applied.map(\.outcome) == [.unchanged])
        #expect(try fixture.recipe().title == before.title)
        #expect(try fixture.store.feedCursor().seq == 7)
        #expect(try fixture.store.recipe(id: other.id).sync.leaseOwner == ConflictFixture.me, "another page's lease was released")
    }
}

@Suite("The server versions a destination without tombstones compares its ids with")
struct ServerVersionsTests {
    @Test("only recipes the server has as far as this device knows are listed, each with its version")
    func listed() throws {
        let fixture = try ConflictFixture()  // "Soup", synced at version 1
        let local = try fixture.store.create(title: "Only here")
        #expect(try fixture.store.serverVersions() == [fixture.uuid: 1])
        #expect(try fixture.pull(.live(version: 5, fields: ConflictFixture.theirs)) != .unchanged)
        #expect(try fixture.store.serverVersions() == [fixture.uuid: 5])
        #expect(try fixture.store.serverVersions()[local.uuid] == nil)
    }
}
