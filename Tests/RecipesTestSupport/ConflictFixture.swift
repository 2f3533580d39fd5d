import Foundation
import RecipeModels
import RecipeStore

/// A home whose recipe "Soup" the server has at version 1, put into conflict through the store's own sync API: an
/// upload acknowledged as version 1, then edits here, then the server's version 2 (or its deletion) pulled as a page
/// of the changes feed. No server runs: the feed's page is given as values, as the pull hands it to the store.
public final class ConflictFixture {
    /// The fixture's clock: every change is stamped, and every lease taken, at this moment.
    public static let now = Date(timeIntervalSince1970: 1_800_000_000)
    /// The lease owner the fixture's upload and pulls use.
    public static let me = "100:1"
    /// Every lease owner counts as a live process.
    public static let alive: @Sendable (String) -> Bool = { _ in true }
    /// What the server has at version 1, as uploaded from here.
    public static let base = RecipeFields(title: "Soup", ingredients: ["a", "b", "c"], steps: ["boil"])
    /// The server's version 2 of `fieldConflict()`: title "Broth", ingredient 2 "B2".
    public static let theirs = RecipeFields(title: "Broth", ingredients: ["a", "B2", "c"], steps: ["boil"])

    /// A setup step that did not come out as the fixture needs.
    public struct SetupFailure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The folder the home is in.
    public let directory: TemporaryDirectory
    /// The home's store.
    public let store: RecipeStore
    /// The recipe's local id.
    public let id: Int64
    /// The recipe's identity on the server.
    public let uuid: UUID

    /// "Soup" uploaded and synced at server version 1 (`base`), in a new home in `directory`, with an image attached
    /// afterwards when `withImage` (its media copy kept: the server never confirmed it).
    public init(in directory: TemporaryDirectory = TemporaryDirectory(), withImage: Bool = false) throws {
        self.directory = directory
        store = try RecipeStore(home: directory.home, now: { Self.now })
        let recipe = try store.create(title: "Soup")
        id = recipe.id
        uuid = recipe.uuid
        for change in [RecipeChange.addIngredient("a"), .addIngredient("b"), .addIngredient("c"), .addStep("boil")] {
            try store.apply(change, to: id)
        }
        let batch = try store.claim(ids: [id], owner: Self.me, now: Self.now, leaseDuration: 60, isOwnerAlive: Self.alive)
        guard let claim = batch.claims.first else { throw SetupFailure(description: "the upload claim took nothing") }
        try store.finishChains([ChainEnding(claim, .uploaded(revision: claim.revision, version: 1, base: Self.base))], owner: Self.me)
        if withImage {
            let path = directory.file("photo.png", pngBytes(size: 128, seed: 3))
            try store.apply(.setImage(try store.media.stage(from: path)), to: id)
        }
    }

    /// Pulls the server's copy `copy` as the next change of the feed; what applying it did.
    @discardableResult
    public func pull(_ copy: ServerCopy) throws -> ServerCopyOutcome {
        let change = PulledChange(uuid: uuid, copy: copy, seq: copy.version)
        guard let applied = try store.applyPage([change], through: copy.version, owner: Self.me, releasing: [uuid]).first else {
            throw SetupFailure(description: "the pull applied nothing")
        }
        return applied.outcome
    }

    /// Puts the recipe into a conflict on `title` and `ingredient 2`: "Stew" and "B1" here, `theirs` on the server.
    public func fieldConflict() throws {
        try store.apply(.title("Stew"), to: id)
        try store.apply(.setIngredient(2, "B1"), to: id)
        let outcome = try pull(.live(version: 2, fields: Self.theirs))
        guard case .conflict(.fields(let conflicts)) = outcome, conflicts.map(\.field.name) == ["title", "ingredient 2"] else {
            throw SetupFailure(description: "the pull did not leave the title and ingredient 2 in conflict: \(outcome)")
        }
    }

    /// The recipe as stored.
    public func recipe() throws -> Recipe { try store.recipe(id: id) }

    /// Whether the recipe is due for a background sync now.
    public func isDue() throws -> Bool { try store.dueRecipes(at: Self.now).contains { $0.id == id } }

    /// The files in `media/` other than its lock.
    public func mediaFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.home.mediaURL.path)) ?? []).filter { $0 != ".lock" }
    }
}
