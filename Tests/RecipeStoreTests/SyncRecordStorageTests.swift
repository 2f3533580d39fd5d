import Foundation
import GRDB
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipeStore

@Suite("The store keeps the state machine's records: every field round-trips, and a write applies only over what was read")
struct SyncRecordStorageTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)

    /// A record with every field set to something other than its default.
    static func full(_ recipe: Recipe) -> SyncRecord {
        var sync = recipe.sync
        sync.state = .waiting
        sync.revision = 7
        sync.syncedRevision = 5
        sync.attempts = 3
        sync.nextAttemptAt = now + 60
        sync.lastError = "HTTP 503"
        sync.leaseOwner = "1:2"
        sync.leaseExpiresAt = now + 30
        sync.cancelRequested = true
        sync.remoteImageURL = "http://h/v1/images/x"
        sync.remoteImageSHA256 = "x"
        sync.offlineSince = now - 10
        sync.deleted = true
        sync.sentRevision = 6
        sync.serverVersion = 9
        sync.base = RecipeFields(title: "Soup", ingredients: ["salt"], image: RecipeImage(serverURL: "http://h/v1/images/" + String(repeating: "ab", count: 32)))
        sync.conflict = .fields([FieldConflict(field: .title, base: .text("a"), mine: .text("b"), theirs: .text("c"))])
        return SyncRecord(sync: sync, image: recipe.image)
    }

    @Test("a record written over the row as read reads back field for field")
    func roundTrip() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let recipe = try store.create(title: "Soup")
        let old = SyncRecord(sync: recipe.sync, image: recipe.image)
        let new = Self.full(recipe)
        let written = try store.write { db in try RecipeStore.write(new, over: old, id: recipe.id, db) }
        #expect(written)
        let stored = try store.recipe(id: recipe.id)
        #expect(SyncRecord(sync: stored.sync, image: stored.image) == new)
    }

    @Test("a write over a record the row no longer holds changes nothing and says so")
    func guardedWrite() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let recipe = try store.create(title: "Soup")
        let stale = SyncRecord(sync: recipe.sync, image: recipe.image)
        try store.apply(.description("edited meanwhile"), to: recipe.id)  // revision 2 now
        let written = try store.write { db in try RecipeStore.write(Self.full(recipe), over: stale, id: recipe.id, db) }
        #expect(!written)
        let stored = try store.recipe(id: recipe.id)
        #expect(stored.sync.revision == 2)
        #expect(stored.sync.state == .pending)
    }

    @Test("an event applied with a stale known record falls back to the row: the machine decides on what is stored")
    func staleKnownFallsBack() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let recipe = try store.create(title: "Soup")
        let stale = SyncRecord(sync: recipe.sync, image: recipe.image)
        try store.apply(.description("edited meanwhile"), to: recipe.id)
        let transition = try store.write { db in try RecipeStore.apply(.edited, to: recipe.id, known: stale, db) }
        #expect(transition?.record.sync.revision == 3, "applied to revision 2 as stored, not to the stale revision 1")
        #expect(try store.recipe(id: recipe.id).sync.revision == 3)
    }

    @Test("the SQL due condition agrees with the machine's isDue on every state, with and without a backoff")
    func dueConditionAgrees() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        for state in SyncState.allCases where state != .conflict {  // conflict is shown, never stored as a state
            for next in [nil, Self.now - 1, Self.now + 1] as [Date?] {
                let recipe = try store.create(title: "\(state) \(String(describing: next))")
                var record = SyncRecord(sync: recipe.sync, image: recipe.image)
                let old = record
                record.sync.state = state
                record.sync.nextAttemptAt = next
                _ = try store.write { db in try RecipeStore.write(record, over: old, id: recipe.id, db) }
                let due = try store.dueRecipes(at: Self.now).contains { $0.id == recipe.id }
                #expect(due == RecipeSyncMachine.isDue(record, at: Self.now), "\(state), next \(String(describing: next))")
            }
        }
    }
}
