import Foundation
import MealieAPI
import RecipeModels
import RecipeStore
import Transport

/// The pull from a Mealie: the recipes written after a position (`ChangeFeed`'s keyset pages on `(updatedAt, id)`),
/// read one by one only when their `updatedAt` is not the one this device recorded; at the end of the list the
/// recipes deleted there (`DeletionCheck`: the count, and the ids when the count differs); images named by what
/// Mealie serves (`ImageIdentity`).
extension MealieDestination {
    /// One page of the recipes written after `position` (Mealie's `updatedAt` in microseconds; 0 for the beginning).
    /// A position this run handed out continues its keyset window; another (the cursor a run saved) starts
    /// `ChangeFeed.defaultOverlap` early, for writes Mealie committed late. The changes' positions only grow: one
    /// read again in the overlap is placed just after `position`. The last page carries the deletions found.
    func changes(after position: Int64, limit: Int) async throws -> ChangesPage {
        let group = try await group()
        let window: ChangeCursor?
        if position <= 0 {
            window = nil
        } else if let kept = state.windows.withLock({ $0[position] }) {
            window = kept
        } else {
            window = ChangeFeed.start(from: MealieTimestamp(microseconds: position).map { ChangeCursor(updatedAt: $0, id: nil) })
        }
        let step = try await call("changes", { () async throws(MealieFailure) in
            try await requests.changes(after: window, pageSize: limit)
        })
        let known = try knownVersions()
        var changes: [ServerChange] = []
        var seq = max(position, 0)
        for stamp in step.items {
            let uuid = stamp.id
            guard ChangeFeed.isNews(stamp, known: known[uuid].flatMap { MealieTimestamp(microseconds: $0) }) else { continue }
            // This device's own import whose answer it never had (lost, or the process killed): not news but its
            // own upload, which the push finds and writes its draft over (the contract server's "own write, answer
            // lost", without a version to recognise it by).
            if known[uuid] == nil, try isOwnUnacknowledged(uuid) { continue }
            // Deleted since it was listed: the deletion check finds it.
            guard let recipe = try await call("recipe", { () async throws(MealieFailure) in try await requests.read(id: uuid) })
            else { continue }
            guard case .live(let version, let fields) = try await copy(of: recipe, uuid: uuid) else { continue }
            seq = MealieFeedPosition.of(version, after: seq)
            changes.append(ServerChange(seq: seq, uuid: uuid, version: version,
                                        recipe: ServerRecipe(identifier: uuid, version: version, fields: fields)))
        }
        if !step.more {
            for (uuid, version) in try await deletions(known: known) {
                seq += 1
                changes.append(ServerChange(seq: seq, uuid: uuid, version: version + 1, recipe: nil))
            }
        }
        let next = MealieFeedPosition.next(after: position, last: seq, reached: step.next?.updatedAt.microseconds, more: step.more)
        if let reached = step.next { state.windows.withLock { $0[next] = reached } }
        return ChangesPage(server: group.id.uuidString.lowercased(), changes: changes, next: next, more: step.more)
    }

    /// The recipes this device knows in Mealie that Mealie no longer lists, with the version this device has of
    /// each: nothing to list when Mealie counts as many recipes as this device knows there.
    func deletions(known: [UUID: Int64]) async throws -> [(UUID, Int64)] {
        let count = try await call("changes", { () async throws(MealieFailure) in try await requests.recipeCount() })
        guard DeletionCheck.needsListing(mealieCount: count, knownInMealie: known.count) else { return [] }
        let listed = try await call("changes", { () async throws(MealieFailure) in try await requests.allRecipeIDs() })
        var byMealieID: [UUID: (UUID, Int64)] = [:]
        for (uuid, version) in known { byMealieID[MealieRecipeID.of(uuid)] = (uuid, version) }
        return DeletionCheck.deleted(known: Set(byMealieID.keys), listed: listed)
            .compactMap { byMealieID[$0] }
            .sorted { $0.0.uuidString < $1.0.uuidString }
    }

    /// `recipe` as the sync's copy: its fields, and its image named by what Mealie serves.
    func copy(of recipe: MealieRecipe, uuid: UUID) async throws -> RecipeRead {
        var fields = recipe.fields
        fields.image = try await image(of: recipe, uuid: uuid)
        return .live(version: recipe.stamp.updatedAt.microseconds, fields: fields)
    }

    /// The image of Mealie's `recipe` (`ImageIdentity`): none; the image recorded with the recipe when Mealie still
    /// serves that file (a one-byte probe of its `ETag`) or the same bytes; else the WebP Mealie serves, named by its
    /// SHA-256 (its bytes kept for the download step).
    func image(of recipe: MealieRecipe, uuid: UUID) async throws -> RecipeImage? {
        let id = recipe.stamp.id
        let recorded = try recordedImage(of: uuid)
        var step = ImageIdentity.firstStep(seen: recorded?.seen, key: recipe.stamp.imageKey)
        if step == .probe, let seen = recorded?.seen {
            let etag = try await call("image", { () async throws(MealieFailure) in try await requests.probeImage(id: id) })
            step = ImageIdentity.afterProbe(seen: seen, etag: etag.map(MealieImageName.token))
        }
        switch step {
        case .noImage:
            return nil
        case .unchanged:
            return recorded.flatMap { RecipeImage(serverURL: $0.text(baseURL: baseURL, id: id)) }
        case .probe, .download:
            let key = recipe.stamp.imageKey ?? ""
            guard let served = try await call("image", { () async throws(MealieFailure) in
                try await requests.downloadImage(id: id, key: key)
            }) else { return nil }  // a key and no file: Mealie has no picture to show
            let seen = served.seen
            if let recorded, ImageIdentity.isRecorded(sha256: seen.sha256, seen: recorded.seen) {
                return RecipeImage(serverURL: MealieImageName(sha256: recorded.sha256, seen: seen).text(baseURL: baseURL, id: id))
            }
            let name = MealieImageName(sha256: seen.sha256, seen: seen).text(baseURL: baseURL, id: id)
            state.downloaded.withLock { $0[name] = served.bytes }
            return RecipeImage(serverURL: name)
        }
    }

    /// The bytes the pull read already for this name, else `original.webp` downloaded now.
    func download(
        _ image: RecipeImage, of recipe: UUID, into download: ImageDownload, progress: (@Sendable (Int64) -> Void)?
    ) async throws {
        let what = "image \(image.sha256.prefix(12))"
        let name = if case .server(let url) = image.source { url } else { "" }
        var bytes = state.downloaded.withLock { $0.removeValue(forKey: name) }
        if bytes == nil {
            let id = MealieRecipeID.of(recipe)
            bytes = try await call(what, { () async throws(MealieFailure) in try await requests.downloadImage(id: id, key: "") })?.bytes
        }
        guard let bytes else { throw StepFailure(.transient(retryAfter: nil), "\(what): Mealie serves no image for the recipe now") }
        let taken = bytes.withUnsafeBytes { download.receive($0) }
        progress?(Int64(bytes.count))
        guard taken else { throw StepFailure(.permanent, "\(what): refused while it arrived") }
    }

    /// Whether recipe `uuid` is this device's, never acknowledged by Mealie (no server version recorded) and sent
    /// (an upload of it was started).
    func isOwnUnacknowledged(_ uuid: UUID) throws -> Bool {
        do {
            guard let recipe = try store.recipe(uuid: uuid) else { return false }
            return recipe.sync.serverVersion == nil && recipe.sync.sentRevision > 0
        } catch {
            throw StepFailure(.transient(retryAfter: nil), "changes: \(error.localizedDescription)")
        }
    }

    /// The Mealie versions this device recorded, by recipe.
    func knownVersions() throws -> [UUID: Int64] {
        do {
            return try store.serverVersions()
        } catch {
            throw StepFailure(.transient(retryAfter: nil), "changes: \(error.localizedDescription)")
        }
    }
}

extension ChangesPage {
    /// A page made by a destination that reads its server's answers itself (Mealie).
    init(server: String, changes: [ServerChange], next: Int64, more: Bool) {
        self.server = server
        self.changes = changes
        self.next = next
        self.more = more
    }
}

/// The positions a Mealie pull hands the sync (Mealie's `updatedAt` in microseconds), so that they only grow, as
/// `FeedProgress.judge` asks of every feed: a change read again in the overlap (its `updatedAt` at or before the
/// position asked from) is placed just after the change before it. Plain functions, tested from a table.
enum MealieFeedPosition {
    /// The position of a change written at `version`, read after position `previous`.
    static func of(_ version: Int64, after previous: Int64) -> Int64 {
        max(previous + 1, version)
    }

    /// Where the page after one asked from `position` starts: after its last change (`last`, `position` when it had
    /// none) and the `updatedAt` of the last recipe listed (`reached`), past `position` when more follow.
    static func next(after position: Int64, last: Int64, reached: Int64?, more: Bool) -> Int64 {
        let next = max(last, reached ?? 0)
        return more ? max(next, position + 1) : next
    }
}
