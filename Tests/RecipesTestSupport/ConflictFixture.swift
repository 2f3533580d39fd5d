import Foundation
import GRDB
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipeStore

/// A home whose recipe "Soup" the server has at version 1, put into conflict through the store's own sync API: an
/// upload acknowledged as version 1, then edits here, then the server's version 2 (or its deletion) pulled as a page
/// of the changes feed. No server runs: the feed's page is given as values, as the pull hands it to the store.
final class ConflictFixture {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let me = "100:1"
    static let alive: @Sendable (String) -> Bool = { _ in true }
    /// What the server has at version 1, as uploaded from here.
    static let base = RecipeFields(title: "Soup", ingredients: ["a", "b", "c"], steps: ["boil"])

    let directory = TemporaryDirectory()
    let store: RecipeStore
    let id: Int64
    let uuid: UUID

    /// "Soup" uploaded and synced at server version 1 (`base`), with an image attached when `withImage` (its media
    /// copy kept: the server's copy of it is not recorded, as for an image that was never confirmed).
    init(withImage: Bool = false) throws {
        store = try RecipeStore(home: directory.home, now: { Self.now })
        let recipe = try store.create(title: "Soup")
        id = recipe.id
        uuid = recipe.uuid
        for change in [RecipeChange.addIngredient("a"), .addIngredient("b"), .addIngredient("c"), .addStep("boil")] {
            try store.apply(change, to: id)
        }
        let batch = try store.claim(ids: [id], owner: Self.me, now: Self.now, leaseDuration: 60, isOwnerAlive: Self.alive)
        let claim = try #require(batch.claims.first)
        try store.finishChains([ChainEnding(claim, .uploaded(revision: claim.revision, version: 1, base: Self.base))], owner: Self.me)
        if withImage {
            let path = directory.file("photo.png", pngBytes(size: 128, seed: 3))
            try store.apply(.setImage(try store.media.stage(from: path)), to: id)
        }
    }

    /// Pulls the server's copy `copy` as the next change of the feed.
    @discardableResult
    func pull(_ copy: ServerCopy) throws -> ServerCopyOutcome {
        let applied = try store.applyPage([PulledChange(uuid: uuid, copy: copy, seq: copy.version)], through: copy.version, owner: Self.me)
        return try #require(applied.first).outcome
    }

    /// Mine: title "Stew", ingredient 2 "B1"; the server's version 2: title "Broth", ingredient 2 "B2". A conflict
    /// on `title` and `ingredient 2`.
    static let theirs = RecipeFields(title: "Broth", ingredients: ["a", "B2", "c"], steps: ["boil"])

    /// Puts the recipe into that field conflict.
    func fieldConflict() throws {
        try store.apply(.title("Stew"), to: id)
        try store.apply(.setIngredient(2, "B1"), to: id)
        let outcome = try pull(.live(version: 2, fields: Self.theirs))
        guard case .conflict(.fields(let conflicts)) = outcome else {
            Issue.record("the pull did not leave a field conflict: \(outcome)")
            return
        }
        #expect(conflicts.map(\.field.name) == ["title", "ingredient 2"])
    }

    /// The recipe as stored.
    func recipe() throws -> Recipe { try store.recipe(id: id) }

    /// Whether the recipe is due for a background sync now.
    func isDue() throws -> Bool { try store.dueRecipes(at: Self.now).contains { $0.id == id } }

    /// The text of the `conflicts` column.
    func storedConflict() throws -> String? {
        try store.read { db in try String.fetchOne(db, sql: "SELECT conflicts FROM recipes WHERE id = ?", arguments: [id]) }
    }

    /// The files in `media/` other than its lock.
    func mediaFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.home.mediaURL.path)) ?? []).filter { $0 != ".lock" }
    }
}
