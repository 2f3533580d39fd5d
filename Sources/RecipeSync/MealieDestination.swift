import Foundation
import Locking
import MealieAPI
import RecipeModels
import RecipeStore
import Transport

/// A Mealie 2.x (`server.kind` `mealie`, docs/mealie.md) as a destination: `MealieDestinationRequests`' operations,
/// their failures read as `StepFailure`s. It reads the store (the versions and image names the sync recorded) and
/// never writes it.
///
/// - Identity: the token's group, asked once per run with `MealieDiagnosis` (a URL that is not a Mealie is a set-up
///   mistake; a refused token stops the run as refused credentials).
/// - Versions are Mealie's `updatedAt` in microseconds. A write reads the recipe first: another `updatedAt` than the
///   base is stale (its copy handed over), else a `PATCH` of the changed fields. A recipe gone from Mealie is
///   `gone` at a version after the base (Mealie keeps no tombstone).
/// - Creating is the zip import under the recipe's id (`create`): exactly once across lost answers and restarts;
///   imports go one at a time (Mealie writes every upload to one fixed temporary file).
/// - Images: Mealie takes an image only for a recipe that exists (by slug), so the image step only decides whether
///   an upload is needed (`MealieImageName`, from the identity recorded with the recipe) and the recipe step does
///   the recipe, then the image, then the fields.
struct MealieDestination: Destination {
    let requests: MealieDestinationRequests
    let store: RecipeStore
    let state: MealieRunState

    var baseURL: String { requests.server.baseURL }

    // MARK: Images up

    /// Missing unless the recipe's recorded image name says Mealie has this very image.
    func missingImages(_ images: [String], of recipe: UUID) async throws -> Set<String> {
        let recorded = try recordedImage(of: recipe)
        return Set(images.filter { sha256 in !(recorded?.seen != nil && recorded?.sha256 == sha256) })
    }

    /// Keeps where the image is and names it "to upload": the recipe step uploads it once the recipe exists.
    func putImage(
        _ image: ImageReference, of recipe: UUID, from path: String,
        progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> String {
        state.uploads.withLock { $0[image.sha256] = PendingUpload(path: path, format: image.format) }
        return MealieImageName(sha256: image.sha256, seen: nil).text(baseURL: baseURL, id: MealieRecipeID.of(recipe))
    }

    /// The name recorded with the recipe when it is this image's, else the image "to upload".
    func imageName(sha256: String, of recipe: UUID) -> String {
        if let recorded = try? recordedImage(of: recipe), recorded.sha256 == sha256 {
            return recorded.text(baseURL: baseURL, id: MealieRecipeID.of(recipe))
        }
        return MealieImageName(sha256: sha256, seen: nil).text(baseURL: baseURL, id: MealieRecipeID.of(recipe))
    }

    // MARK: The recipe

    /// The recipe's document as the outbox keeps it (`RecipeDocument`, its version the base, 0 for none).
    func prepareWrite(_ recipe: Recipe, image: String?, base: Int64?) throws -> PreparedWrite {
        // An earlier attempt failed: its import may have landed, so the creation looks the id up first.
        state.mayExist.withLock { $0[recipe.uuid] = recipe.sync.attempts > 0 }
        let document = RecipeDocument.encode(recipe, version: base ?? 0, imageURL: image)
        return PreparedWrite(uuid: recipe.uuid, base: base, version: nil, document: document)
    }

    /// The recipe exists (created, or read and checked against the base), then its image (when "to upload"), then
    /// its fields (a `PATCH` of what differs).
    func write(_ write: PreparedWrite) async throws -> WriteAnswer {
        guard let sent = ServerRecipe(document: write.document) else {
            throw StepFailure(.permanent, "recipe: its document could not be read back for Mealie")
        }
        _ = try await group()
        let fields = sent.fields
        let id = MealieRecipeID.of(write.uuid)
        var current: MealieRecipe
        if let base = write.base {
            guard let found = try await call("recipe", { () async throws(MealieFailure) in try await requests.read(id: id) })
            else { return .gone(version: base + 1) }
            guard found.stamp.updatedAt.microseconds == base else { return .stale(copy: try await copy(of: found, uuid: write.uuid)) }
            current = found
        } else {
            let mayExist = state.mayExist.withLock { $0[write.uuid] ?? false }
            await state.imports.enter()
            let created: MealieDestinationRequests.CreateOutcome
            do {
                created = try await call("recipe", { () async throws(MealieFailure) in
                    try await requests.create(fields, uuid: write.uuid, mayExist: mayExist)
                })
                await state.imports.leave()
            } catch {
                await state.imports.leave()
                throw error
            }
            // Found: an earlier attempt of this device made it (its answer lost, its process killed); this draft is
            // written over it on its `updatedAt` below.
            current = created.recipe
        }
        var confirmed: String?
        if let image = fields.image, case .server(let url) = image.source, let name = MealieImageName(url), name.seen == nil {
            let (after, seen) = try await upload(name.sha256, to: current)
            current = after
            confirmed = MealieImageName(sha256: name.sha256, seen: seen).text(baseURL: baseURL, id: id)
        }
        let outcome = try await call("recipe", { () async throws(MealieFailure) in
            try await requests.write(fields, id: id, base: current.stamp.updatedAt, current: current)
        })
        switch outcome {
        case .written(let stored): return .written(version: stored.stamp.updatedAt.microseconds, image: confirmed)
        case .stale(let other): return .stale(copy: try await copy(of: other, uuid: write.uuid))
        case .gone: return .gone(version: (write.base ?? current.stamp.updatedAt.microseconds) + 1)
        }
    }

    /// Uploads local image `sha256` (its path kept by the image step) to `recipe`: the recipe as Mealie has it after
    /// (the upload moved its `updatedAt`) and what Mealie serves.
    private func upload(_ sha256: String, to recipe: MealieRecipe) async throws -> (MealieRecipe, ImageIdentity.Seen) {
        guard let pending = state.uploads.withLock({ $0[sha256] }) else {
            throw StepFailure(.later, "image \(sha256.prefix(12)): not ready to upload; the next run sends it")
        }
        let bytes: Data
        do {
            bytes = try Data(contentsOf: URL(fileURLWithPath: pending.path))
        } catch {
            throw StepFailure(.permanent, "image \(sha256.prefix(12)): the local copy cannot be read (\(error.localizedDescription)); "
                + "attach it again with `image set`")
        }
        let format = pending.format
        let result = try await call("image \(sha256.prefix(12))", { () async throws(MealieFailure) in
            try await requests.putImage(bytes, fileExtension: format == .jpeg ? "jpg" : format.fileExtension,
                                        mediaType: format.mediaType, recipe: recipe, confirmedSHA256: nil)
        })
        guard let uploaded = result else { throw StepFailure(.transient(retryAfter: nil), "image: not uploaded") }
        return (uploaded.recipe, uploaded.image.seen)
    }

    /// Deletes the recipe if Mealie's `updatedAt` is still the base: gone already counts as deleted.
    func delete(_ recipe: UUID, base: Int64) async throws -> DeleteAnswer {
        _ = try await group()
        let id = MealieRecipeID.of(recipe)
        let outcome = try await call("delete", { () async throws(MealieFailure) in
            try await requests.delete(id: id, base: MealieTimestamp(microseconds: base))
        })
        switch outcome {
        case .deleted, .alreadyGone: return .deleted
        case .stale: return .stale
        }
    }

    /// Mealie's copy, its image named (`copy(of:uuid:)`); absent when Mealie has none (no tombstones).
    func read(_ recipe: UUID) async throws -> RecipeRead {
        _ = try await group()
        let id = MealieRecipeID.of(recipe)
        guard let found = try await call("recipe", { () async throws(MealieFailure) in try await requests.read(id: id) })
        else { return .absent }
        return try await copy(of: found, uuid: recipe)
    }

    // MARK: Parts

    /// The token's group, asked once per run (`MealieDiagnosis`: `GET /api/app/about`, then `GET /api/groups/self`);
    /// asked again after a failure that waiting may cure.
    func group() async throws -> MealieGroup {
        let requests = requests
        let task = state.identity.withLock { current in
            if let current { return current }
            let made = Task<MealieGroup, any Error> {
                switch await requests.diagnose() {
                case .mealie(let group): return group
                case .notAMealie(let words): throw StepFailure(.setup, words)
                case .tokenRefused(let words): throw StepFailure(.credentials, "not sent: " + words)
                case .unreachable(let words), .serverError(let words): throw StepFailure(.transient(retryAfter: nil), words)
                }
            }
            current = made
            return made
        }
        do {
            return try await task.value
        } catch {
            state.identity.withLock { if $0 == task { $0 = nil } }
            throw error
        }
    }

    /// Runs one operation of `requests`, its failure read as the sync's.
    func call<T>(_ what: String, _ body: () async throws(MealieFailure) -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            switch error {
            case .retry(let reason, let after): throw StepFailure(.transient(retryAfter: after), "\(what): \(reason)")
            case .refused(let message): throw StepFailure(.permanent, "\(what): \(message)")
            case .badCredentials(let message):
                throw StepFailure(.credentials, "not sent: Mealie refused server.token (\(message)); make an API token in "
                    + "Mealie (your profile, API Tokens) and set it with `recipes config set server.token -`")
            case .cancelled: throw StepFailure(.permanent, "\(what): cancelled")
            }
        }
    }

    /// The image name recorded with recipe `uuid`, when this destination gave it.
    func recordedImage(of uuid: UUID) throws -> MealieImageName? {
        guard let recipe = try store.recipe(uuid: uuid), let url = recipe.sync.remoteImageURL else { return nil }
        return MealieImageName(url)
    }
}

/// What a Mealie destination keeps for one run: the identity asked once, the images the image steps left to upload,
/// the bytes a pull already downloaded, the keyset windows of the pages handed out, one import at a time.
final class MealieRunState: Sendable {
    let identity = Locked<Task<MealieGroup, any Error>?>(nil)
    let uploads = Locked<[String: PendingUpload]>([:])
    let mayExist = Locked<[UUID: Bool]>([:])
    let downloaded = Locked<[String: Data]>([:])
    let windows = Locked<[Int64: ChangeCursor]>([:])
    let imports = SerialGate()
}

/// A local image the image step found missing in Mealie: where it is and its format.
struct PendingUpload: Sendable {
    let path: String
    let format: ImageFormat
}

/// One at a time: the callers of `enter` go through in turn until each `leave`s.
actor SerialGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
    }
}
