import Foundation
import GRDB
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipeStore

@Suite("The earliest retry: when the watcher's timer must wake it")
struct EarliestRetryTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let me = "100:1"
    static let other = "200:2"

    /// One recipe's record, as `change` makes it from a fresh pending recipe.
    typealias Change = @Sendable (inout SyncInfo) -> Void

    static let waiting60: Change = { $0.state = .waiting; $0.attempts = 1; $0.nextAttemptAt = now + 60 }
    static let waiting30: Change = { $0.state = .waiting; $0.attempts = 2; $0.nextAttemptAt = now + 30 }

    @Test("each set of recipes gives the time the table says", arguments: [
        ("no recipe", [], nil),
        ("a pending recipe is due now: nothing to wait for", [{ _ in }], nil),
        ("a retry in 60 s", [waiting60], now + 60),
        ("the earlier of two retries", [waiting60, waiting30], now + 30),
        ("a retry already due: nothing to wait for", [{ $0.state = .waiting; $0.nextAttemptAt = now - 1 }], nil),
        ("a recipe in conflict waits for a person, not a time",
         [{ $0.state = .waiting; $0.nextAttemptAt = now + 60
            $0.conflict = .fields([FieldConflict(field: .title, base: .text("a"), mine: .text("b"), theirs: .text("c"))]) }],
         nil),
        ("failed and cancelled recipes wait for a person",
         [{ $0.state = .failed; $0.nextAttemptAt = now + 60 }, { $0.state = .cancelled; $0.nextAttemptAt = now + 60 }], nil),
        ("a due recipe another process holds: when its lease lapses",
         [{ $0.state = .uploading; $0.leaseOwner = other; $0.leaseExpiresAt = now + 20 }, waiting60], now + 20),
        ("a due recipe this process holds: not a reason to wake",
         [{ $0.state = .uploading; $0.leaseOwner = me; $0.leaseExpiresAt = now + 20 }], nil),
        ("a retry a month ahead was recorded by a clock since set back: due now, nothing to wait for",
         [{ $0.state = .waiting; $0.attempts = 1; $0.nextAttemptAt = now + 30 * 86_400 }], nil),
        ("a lease that has lapsed: claimable now, nothing to wait for",
         [{ $0.state = .uploading; $0.leaseOwner = other; $0.leaseExpiresAt = now - 5 }], nil),
    ] as [(String, [Change], Date?)])
    func earliest(_ what: String, records: [Change], expected: Date?) throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        for (index, change) in records.enumerated() {
            let recipe = try store.create(title: "Recipe \(index)")
            let old = SyncRecord(sync: recipe.sync, image: recipe.image)
            var new = old
            change(&new.sync)
            #expect(try store.write { db in try RecipeStore.write(new, over: old, id: recipe.id, db) })
        }
        #expect(try store.earliestRetry(after: Self.now, owner: Self.me) == expected, "\(what)")
    }

    @Test("a wait a month ahead (a clock since set back) is due in every query of the store; one of an hour is not")
    func waitFromAClockSetBack() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        var ids: [Int64] = []
        for ahead in [3600.0, 30 * 86_400.0] {
            let recipe = try store.create(title: "Waits \(Int(ahead)) s")
            let old = SyncRecord(sync: recipe.sync, image: recipe.image)
            var new = old
            new.sync.state = .waiting
            new.sync.attempts = 1
            new.sync.nextAttemptAt = Self.now + ahead
            #expect(try store.write { db in try RecipeStore.write(new, over: old, id: recipe.id, db) })
            ids.append(recipe.id)
        }
        let hour = try #require(ids.first), month = try #require(ids.last)
        #expect(try store.hasDueWork(at: Self.now))
        #expect(try store.dueRecipes(at: Self.now).map(\.id) == [month])
        #expect(try store.waitingRecipes(at: Self.now).map(\.id) == [hour])
        let batch = try store.claimDue(
            owner: Self.me, now: Self.now, leaseDuration: 60, limit: 10, after: 0, isOwnerAlive: { _ in true })
        #expect(batch.claims.map(\.recipe.id) == [month], "\(batch)")
    }
}
