import Foundation
import RecipeModels
import RecipeStore
import Transport

/// What a sync needs from a server, whatever kind it is (docs/sync-engine.md, "The destination seam"): the changes
/// since a position of its feed (with the identity of the server the position belongs to), which images it lacks,
/// writing an image, writing or deleting a recipe conditionally on a base, reading one recipe, downloading an image.
///
/// A destination only asks and reads answers: it never writes to the store, the outbox or `images/` (a download goes
/// into the `ImageDownload` the chain began). Chains, merges, conflicts, leases, retries and reports are written once
/// against it (`ChainSteps`, `PullRun`). Every failure comes out as a `StepFailure` the retry policy and
/// `ChainConclusion` understand.
///
/// Versions and positions are opaque to the sync: it keeps what an answer gave and hands it back. A version is an
/// `Int64` the destination chose (the contract server's version number; Mealie's `updatedAt` in microseconds), and
/// so is a feed position (the contract server's sequence number; Mealie's `updatedAt` of the last recipe read, its
/// keyset window on `(updatedAt, id)` kept by the conformance between the pages of one pull). The one thing the sync
/// asks of them: a recipe's versions grow with each write (a copy whose version is not above the base is taken as
/// nothing new), and so do the positions of a feed.
protocol Destination: Sendable {
    /// The base URL (`server.url`): the origin the token goes to and the set-up diagnosis speaks of.
    var baseURL: String { get }

    /// A page of the changes after `position` (0: from the beginning), at most `limit`, with the identity of the server
    /// whose feed it is (a new identity: another or a reset server, read again from 0).
    func changes(after position: Int64, limit: Int) async throws -> ChangesPage

    /// Which of `images` (SHA-256s) the destination lacks for `recipe`. A destination without a batch request asks
    /// about one at a time.
    func missingImages(_ images: [String], of recipe: UUID) async throws -> Set<String>

    /// Writes `image` of `recipe` from the file at `path`; returns the name the destination gives it.
    func putImage(
        _ image: ImageReference, of recipe: UUID, from path: String,
        progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> String

    /// The name (URL) under which this destination serves image `sha256` of `recipe`: always its own, whatever name
    /// another server (or this one under another host name) gave the image.
    func imageName(sha256: String, of recipe: UUID) -> String

    /// The write of `recipe` based on destination version `base` (nil: one the destination never had), naming its
    /// image `image` (the destination's name, or nil for none): the bytes the outbox keeps, ready to send.
    func prepareWrite(_ recipe: Recipe, image: String?, base: Int64?) throws -> PreparedWrite

    /// Sends `write`: written, stale (another writer came first), gone (deleted there since the base), or refused.
    func write(_ write: PreparedWrite) async throws -> WriteAnswer

    /// Deletes `recipe` conditionally on destination version `base`.
    func delete(_ recipe: UUID, base: Int64) async throws -> DeleteAnswer

    /// The destination's copy of `recipe`.
    func read(_ recipe: UUID) async throws -> RecipeRead

    /// Downloads `image` of `recipe` (as a copy of it named it) into `download`, streamed, hashed and size-checked
    /// as it arrives.
    func download(
        _ image: RecipeImage, of recipe: UUID, into download: ImageDownload, progress: (@Sendable (Int64) -> Void)?
    ) async throws

    /// The round trip to the destination as its first request measured it, for the run to choose its connections
    /// (`ConnectionPlan`); nil when not measured (the run keeps `--jobs`).
    func roundTrip() async -> Duration?

    /// The run is about to send `images` (SHA-256s of the recipes it just claimed): a destination that can ask about
    /// many at once starts asking now, for `missingImages` to find the answers.
    func anticipate(images: [String])

    /// The optional requests this run stopped using because the destination did not answer them after all (which
    /// request failed, how, and what was sent instead), in words, for the run's summary.
    func fallbacks() -> [String]
}

extension Destination {
    /// Not measured: the run keeps `--jobs` connections.
    func roundTrip() async -> Duration? { nil }

    /// Nothing asked ahead: each chain asks when its step runs.
    func anticipate(images: [String]) {}

    /// No optional requests to fall back from.
    func fallbacks() -> [String] { [] }
}

/// A recipe write as it will be sent: the bytes kept in the outbox, for the destination to send.
struct PreparedWrite: Sendable {
    /// The recipe.
    let uuid: UUID
    /// The destination version the write is based on (nil: a recipe the destination never had).
    let base: Int64?
    /// The version the write makes, when the destination decides it before the answer (the contract server's
    /// base + 1); nil when only the answer tells (Mealie's `updatedAt`).
    let version: Int64?
    /// The document sent (and written to the outbox before it is).
    let document: Data
}

/// What a conditional recipe write came to. A stale write is an answer, not a failure: the chain reads the server's
/// copy, merges and writes again as steps of its own (`ChainRound`).
enum WriteAnswer: Sendable, Equatable {
    /// The destination has the write as `version`; `image` is the destination's new name of the recipe's image when
    /// the write changed it (Mealie: the identity of the bytes it serves after the upload), nil when it is the name
    /// the write was given.
    case written(version: Int64, image: String? = nil)
    /// Another writer came first: the destination has something else than the base. `copy` is its copy when the
    /// destination read it to find out (Mealie), nil when it must be read (the contract server's `412`).
    case stale(copy: RecipeRead?)
    /// The destination deleted the recipe since the base, at `version` (the contract server's `412` saying
    /// `"deleted":true` names its tombstone; a destination without tombstones, Mealie, chooses a version after the
    /// base): merged as a deletion on the server.
    case gone(version: Int64)
    /// The destination refuses this recipe's write, why in words (not the credentials: those stop the run). It
    /// fails permanently for that recipe.
    case refused(String)
}

/// What a conditional deletion came to.
enum DeleteAnswer: Sendable, Equatable {
    /// The recipe is gone (deleted now, or already).
    case deleted
    /// The destination has another version than the base: the chain reads and merges.
    case stale
}

/// The destination's copy of one recipe.
enum RecipeRead: Sendable, Equatable {
    /// Live at `version`, with these fields (the image named as the destination serves it).
    case live(version: Int64, fields: RecipeFields)
    /// Deleted at `version` (a tombstone).
    case deleted(version: Int64)
    /// Never there.
    case absent

    /// The version, when the destination has one.
    var version: Int64? {
        switch self {
        case .live(let version, _), .deleted(let version): version
        case .absent: nil
        }
    }
}
