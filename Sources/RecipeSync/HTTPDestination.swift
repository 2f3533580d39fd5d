import Foundation
import RecipeModels
import RecipeStore
import Transport

/// The contract server (`server.kind` `http`, docs/http-api.md) as a destination: the requests of `ServerAPI` sent
/// through the run's client, their answers read as the contract says. It writes nothing to the store.
///
/// Images are named by their SHA-256 on this server's own origin (`<server.url>/v1/images/<sha256>`), never by a URL a
/// recipe carried from elsewhere: the reference server refuses a document naming an image URL not its own, which a
/// household naming one server twice (`localhost` and `127.0.0.1`) met as a `422`.
struct HTTPDestination: Destination {
    let api: ServerAPI
    let client: HTTPClient
    let reachability: Reachability
    let settings: SyncSettings

    var baseURL: String { api.baseURL }

    func changes(after position: Int64, limit: Int) async throws -> ChangesPage {
        let response = try await send(api.changes(since: position, limit: limit), what: "changes")
        guard response.status == 200 else { throw failure(response, what: "changes") }
        guard let page = ChangesPage(response.body) else {
            throw StepFailure(.transient(retryAfter: nil), "changes: the server's page is not the recipe server's changes feed")
        }
        return page
    }

    /// `HEAD /v1/images/{sha256}` for each (a crash after an upload never sends the bytes again). Only a `HEAD` with
    /// the image's `ETag` counts as the server having it (see `UnexpectedAnswer`).
    func missingImages(_ images: [String], of recipe: UUID) async throws -> Set<String> {
        var missing: Set<String> = []
        for sha256 in images {
            let what = "image \(sha256.prefix(12))"
            let head = try await send(api.headImage(sha256: sha256), what: what)
            if ServerAPI.headConfirmsImage(head, sha256: sha256) { continue }
            guard (200..<300).contains(head.status) || head.status == 404 else { throw failure(head, what: what) }
            missing.insert(sha256)
        }
        return missing
    }

    /// `PUT /v1/images/{sha256}` streamed from `path`; only an answer naming its SHA-256 and URL counts.
    func putImage(
        _ image: ImageReference, of recipe: UUID, from path: String,
        progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> String {
        let what = "image \(image.sha256.prefix(12))"
        let request = api.putImage(sha256: image.sha256, path: path, format: image.format)
        let response = try await send(request, what: what, progress: progress)
        guard (200..<300).contains(response.status) else { throw failure(response, what: what) }
        switch ServerAPI.imageAcknowledgement(response, sha256: image.sha256) {
        case .success: return imageName(sha256: image.sha256, of: recipe)
        case .failure(let unexpected): throw StepFailure(.transient(retryAfter: nil), "\(what): \(unexpected)")
        }
    }

    func imageName(sha256: String, of recipe: UUID) -> String { api.imageURL(sha256: sha256) }

    /// The document of version `base + 1` (1 for a recipe the server never had), its image named on this server.
    func prepareWrite(_ recipe: Recipe, image: String?, base: Int64?) throws -> PreparedWrite {
        guard let version = ServerNumbers.next(after: base) else {
            throw StepFailure(.permanent, "recipe: the server version it is based on, \(base ?? 0), is out of range "
                + "(recipes takes 1 to \(ServerNumbers.maximum)); the server sent a version no server makes")
        }
        let own = image.map { name in RecipeImage(serverURL: name).map { imageName(sha256: $0.sha256, of: recipe.uuid) } ?? name }
        let document = RecipeDocument.encode(recipe, version: version, imageURL: own)
        return PreparedWrite(uuid: recipe.uuid, base: base, version: version, document: document)
    }

    /// `PUT /v1/recipes/{uuid}` conditional on the base (`If-Match`, or `If-None-Match: *`). Only an answer naming
    /// this recipe and the version sent counts as written; `412` is stale.
    func write(_ write: PreparedWrite) async throws -> WriteAnswer {
        let what = "recipe"
        let request = api.putRecipe(uuid: write.uuid, document: write.document, base: write.base)
        let response = try await send(request, what: what)
        switch response.status {
        case 200..<300:
            switch ServerAPI.recipeAcknowledgement(response, uuid: write.uuid) {
            case .success(let acknowledged) where acknowledged == write.version:
                return .written(version: acknowledged)
            case .success(let acknowledged):
                throw StepFailure(.permanent, "recipe: the server acknowledged version \(acknowledged) instead of \(write.version ?? 0)")
            case .failure(let unexpected):
                throw StepFailure(.transient(retryAfter: nil), "\(what): \(unexpected)")
            }
        case 412:
            // A tombstone's version in the answer is the copy itself: nothing to read.
            if let tombstone = ServerAPI.staleTombstone(inAnswer: response.body) { return .gone(version: tombstone) }
            return .stale(copy: nil)
        default:
            let failure = failure(response, what: what)
            // A permanent refusal of this recipe (422, 413, 400…) is an answer; set-up mistakes and transient
            // failures stay failures, for the run and the retry policy.
            if failure.kind == .permanent { return .refused(failure.message) }
            throw failure
        }
    }

    /// `DELETE /v1/recipes/{uuid}` with `If-Match`; `204`, or a contract error saying it is already gone, is done.
    func delete(_ recipe: UUID, base: Int64) async throws -> DeleteAnswer {
        let response = try await send(api.deleteRecipe(uuid: recipe, base: base), what: "delete")
        if response.status == 412 { return .stale }
        guard (200..<300).contains(response.status) || response.status == 404 || response.status == 410 else {
            throw failure(response, what: "delete")
        }
        if case .failure(let unexpected) = ServerAPI.deletionAcknowledgement(response) {
            throw StepFailure(.transient(retryAfter: nil), "delete: \(unexpected)")
        }
        return .deleted
    }

    /// `GET /v1/recipes/{uuid}`: `200` the document, `410` a tombstone, `404` never stored.
    func read(_ recipe: UUID) async throws -> RecipeRead {
        let what = "recipe"
        let response = try await send(api.getRecipe(uuid: recipe), what: what)
        switch response.status {
        case 200:
            guard let copy = ServerRecipe(document: response.body), copy.identifier == recipe else {
                throw StepFailure(.transient(retryAfter: nil), "\(what): the server's copy is not a recipe document it could have stored")
            }
            return .live(version: copy.version, fields: copy.fields)
        case 410:
            guard let version = ServerAPI.tombstoneVersion(inAnswer: response.body) else { throw failure(response, what: what) }
            return .deleted(version: version)
        case 404:
            return .absent
        default:
            throw failure(response, what: what)
        }
    }

    /// `GET` of the image at the URL the recipe names (a document another app wrote may name one elsewhere: fetched
    /// there without the token, which goes to server.url's origin only); by its SHA-256 here when it names none.
    func download(
        _ image: RecipeImage, of recipe: UUID, into download: ImageDownload, progress: (@Sendable (Int64) -> Void)?
    ) async throws {
        let url = image.serverURL ?? api.imageURL(sha256: image.sha256)
        try await self.download(sha256: image.sha256, url: url, into: download, progress: progress)
    }

    /// `GET` of image `sha256` at `url` into `download`.
    private func download(
        sha256: String, url: String, into download: ImageDownload, progress: (@Sendable (Int64) -> Void)?
    ) async throws {
        let what = "image \(sha256.prefix(12))"
        let response = try await send(api.getImage(url: url), what: what, sink: DownloadSink(download, progress: progress))
        guard response.status == 200 else {
            let elsewhere = RequestOrigin(url: url).map { $0 != RequestOrigin(url: api.baseURL) } ?? true
            if elsewhere, [401, 403].contains(response.status) {
                // Sent without the token, which goes to server.url's origin only: not the server refusing it.
                throw StepFailure(.permanent, "\(what): its URL is on another host or port than server.url "
                    + "(\(RequestOrigin(url: url)?.description ?? "elsewhere")), which asked for credentials (HTTP "
                    + "\(response.status)); recipes sends the token to server.url's origin only")
            }
            throw failure(response, what: what, request: .mayBeMissing)
        }
    }
}
