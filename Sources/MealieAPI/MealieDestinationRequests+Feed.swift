import Crypto
import Foundation
import RecipeModels
import Transport

extension MealieDestinationRequests {
    // MARK: Changes and deletions

    /// One page of the recipes written after `position` (`ChangeFeed`: start from `ChangeFeed.start(from:)` of the
    /// saved cursor, save `ChangeFeed.cursorToSave` at the end).
    public func changes(after position: ChangeCursor?, pageSize: Int) async throws(MealieFailure) -> ChangeFeed.Step {
        let size = min(max(pageSize, 1), MealieServer.maxPageSize)
        let result = await send(server.changes(after: position, pageSize: size))
        let read = { (response: HTTPResponse) in
            MealieAnswer.recipePage(response, pageSize: size).flatMap { ChangeFeed.step($0, after: position, pageSize: size) }
        }
        if case .success(let response) = result, case .success(let step) = read(response) { return step }
        throw failure(result, read, recipeScoped: false)
    }

    /// How many recipes the group has (`DeletionCheck.needsListing` compares it with those the sync knows).
    public func recipeCount() async throws(MealieFailure) -> Int {
        let result = await send(server.recipeCount())
        let read = { (response: HTTPResponse) in MealieAnswer.recipePage(response, pageSize: 1).map(\.total) }
        if case .success(let response) = result, case .success(let count) = read(response) { return count }
        throw failure(result, read, recipeScoped: false)
    }

    /// Every recipe id of the group, in keyset pages of `pageSize` (`DeletionCheck`): deleted = known − listed.
    public func allRecipeIDs(pageSize: Int = MealieServer.maxPageSize) async throws(MealieFailure) -> Set<UUID> {
        let size = min(max(pageSize, 1), MealieServer.maxPageSize)
        var listed: Set<UUID> = []
        var position: UUID?
        while true {
            let result = await send(server.recipeIDs(after: position, pageSize: size))
            let read = { [position] (response: HTTPResponse) in
                MealieAnswer.recipePage(response, pageSize: size).flatMap { DeletionCheck.step($0, after: position, pageSize: size) }
            }
            guard case .success(let response) = result, case .success(let step) = read(response) else {
                throw failure(result, read, recipeScoped: false)
            }
            listed.formUnion(step.ids)
            guard step.more, let next = step.next else { return listed }
            position = next
        }
    }

    // MARK: Images

    /// What an image upload or download leaves: the identity of the bytes Mealie serves, and the bytes.
    public struct ServedImage: Sendable, Equatable {
        /// The cache key, the `ETag` and the SHA-256 of the served WebP (`ImageIdentity.Seen`).
        public var seen: ImageIdentity.Seen
        /// The WebP bytes Mealie serves.
        public var bytes: Data
    }

    /// Uploads `image` (`fileExtension` `jpg`, `png`, `gif` or `webp`, with its media type) to `recipe` when its
    /// SHA-256 differs from `confirmedSHA256` (`ImageIdentity.needsUpload`; nil when unchanged, nothing sent), then
    /// downloads what Mealie serves (its identity) and reads the recipe again (the upload moved its `updatedAt`: the
    /// new base). Sending the same image twice is harmless, so a lost answer is simply sent again.
    public func putImage(_ image: Data, fileExtension: String, mediaType: String, recipe: MealieRecipe,
                         confirmedSHA256: String?) async throws(MealieFailure) -> (image: ServedImage, recipe: MealieRecipe)? {
        let local = SHA256.hash(data: image).map { String(format: "%02x", $0) }.joined()
        guard ImageIdentity.needsUpload(localSHA256: local, confirmedSHA256: confirmedSHA256) else { return nil }
        var random = SystemRandomNumberGenerator()
        guard let form = MultipartForm.imageUpload(image, fileExtension: fileExtension, mediaType: mediaType,
                                                   boundary: MultipartForm.randomBoundary(using: &random))
        else { throw .retry(reason: "the multipart boundary occurs in the image", after: nil) }
        let result = await send(server.uploadImage(slug: recipe.stamp.slug, form))
        guard case .success(let response) = result, case .success(let key) = MealieAnswer.imageKey(response) else {
            throw failure(result, MealieAnswer.imageKey, recipeScoped: true)
        }
        let id = recipe.stamp.id
        guard let served = try await downloadImage(id: id, key: key) else {
            throw .retry(reason: "Mealie stored no image for recipe \(id.lowercased) after its upload", after: nil)
        }
        guard let after = try await read(id: id) else {
            throw .retry(reason: "recipe \(id.lowercased) was deleted in Mealie during its image upload", after: nil)
        }
        return (served, after)
    }

    /// The image Mealie serves for recipe `id` (`key`, its `image` field, recorded with it), nil when it has none.
    public func downloadImage(id: UUID, key: String) async throws(MealieFailure) -> ServedImage? {
        let result = await send(server.image(id: id))
        guard case .success(let response) = result, case .success(let etag) = MealieAnswer.imageETag(response) else {
            throw failure(result, MealieAnswer.imageETag, recipeScoped: true)
        }
        guard let etag, response.status == 200 else { return nil }
        let sha = SHA256.hash(data: response.body).map { String(format: "%02x", $0) }.joined()
        return ServedImage(seen: ImageIdentity.Seen(key: key, etag: etag, sha256: sha), bytes: response.body)
    }

    /// The `ETag` of recipe `id`'s image for one byte (`ImageIdentity.afterProbe`), nil when it has none.
    public func probeImage(id: UUID) async throws(MealieFailure) -> String? {
        let result = await send(server.imageProbe(id: id))
        if case .success(let response) = result, case .success(let etag) = MealieAnswer.imageETag(response) { return etag }
        throw failure(result, MealieAnswer.imageETag, recipeScoped: true)
    }
}
