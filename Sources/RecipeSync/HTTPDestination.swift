import Foundation
import OperationEngine
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
    /// The server's optional requests, asked once for the run (`GET /v1/health`).
    let features = FeatureCache()
    /// The chains' image checks and recipe writes that become ready together, each set in one request when the server
    /// lists `images-missing` and `recipes-batch` (docs/sync-engine.md, "How the chains' requests travel").
    let batches: Batches
    /// The images whose upload was cut in this run (their next attempt asks what the server kept).
    let cutUploads = CutUploads()
    /// The image checks asked for each batch of claimed recipes before their chains run.
    let checksAhead = ChecksAhead()

    init(api: ServerAPI, client: HTTPClient, reachability: Reachability, settings: SyncSettings,
         window: Duration = Batches.window, windowClock: any EngineClock = ContinuousEngineClock()) {
        self.api = api
        self.client = client
        self.reachability = reachability
        self.settings = settings
        batches = Batches(window: window, clock: windowClock)
    }

    var baseURL: String { api.baseURL }

    func fallbacks() -> [String] { features.refusals }

    func changes(after position: Int64, limit: Int) async throws -> ChangesPage {
        let response = try await send(api.changes(since: position, limit: limit), what: "changes")
        guard response.status == 200 else { throw failure(response, what: "changes") }
        guard let page = ChangesPage(response.body) else {
            throw StepFailure(.transient(retryAfter: nil), "changes: the server's page is not the recipe server's changes feed")
        }
        return page
    }

    /// In the run's `POST /v1/images/missing` when the server lists `images-missing`; else `HEAD /v1/images/{sha256}`
    /// for each (a crash after an upload never sends the bytes again). Only a `HEAD` with the image's `ETag` counts as
    /// the server having it (see `UnexpectedAnswer`).
    func missingImages(_ images: [String], of recipe: UUID) async throws -> Set<String> {
        if try await serverFeatures().imagesMissing {
            do {
                return try await missingInBatch(images)
            } catch {
                guard features.isRefused("images-missing") else { throw error }  // asked one at a time below
            }
        }
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

    /// `PUT /v1/images/{sha256}` streamed from `path`; only an answer naming its SHA-256 and URL counts. To a server
    /// with `resumable-images`, a large image, or one whose upload was cut in this run, first asks what the server
    /// kept of it and sends only the rest (`resume`).
    func putImage(
        _ image: ImageReference, of recipe: UUID, from path: String,
        progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws -> String {
        let what = "image \(image.sha256.prefix(12))"
        let resumable = try await serverFeatures().resumableImages
        if resumable, let size = Self.fileSize(path),
            ResumableUpload.asksOffset(size: size, cutBefore: cutUploads.contains(image.sha256)),
            let name = try await resume(image, of: recipe, from: path, size: size, progress: progress)
        {
            return name
        }
        var request = api.putImage(sha256: image.sha256, path: path, format: image.format)
        // What the server keeps of a cut upload is resumed by the next attempt, not sent whole again by libcurl.
        request.resendsWhole = !resumable
        let response = try await sendUpload(request, of: image.sha256, what: what, progress: progress)
        guard (200..<300).contains(response.status) else { throw failure(response, what: what) }
        return try acknowledgedName(response, of: image, recipe: recipe)
    }

    /// The destination's name of `image` when `response` acknowledges it (its SHA-256 and URL).
    func acknowledgedName(_ response: HTTPResponse, of image: ImageReference, recipe: UUID) throws -> String {
        switch ServerAPI.imageAcknowledgement(response, sha256: image.sha256) {
        case .success: return imageName(sha256: image.sha256, of: recipe)
        case .failure(let unexpected):
            throw StepFailure(unexpected.stepKind, "image \(image.sha256.prefix(12)): \(unexpected)")
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

    /// `PUT /v1/recipes/{uuid}` conditional on the base (`If-Match`, or `If-None-Match: *`), or the same write in the
    /// run's `POST /v1/recipes/batch` when the server lists `recipes-batch`. Only an answer naming this recipe and the
    /// version sent counts as written; `412` is stale.
    func write(_ write: PreparedWrite) async throws -> WriteAnswer {
        if try await serverFeatures().recipesBatch {
            do {
                return try writeAnswer(try await inBatch(.put(write)), to: write)
            } catch {
                guard features.isRefused("recipes-batch") else { throw error }  // sent on its own below
            }
        }
        let request = api.putRecipe(uuid: write.uuid, document: write.document, base: write.base)
        return try writeAnswer(try await send(request, what: "recipe"), to: write)
    }

    /// What `response`, the answer to `write`'s own `PUT` (or its result in a batch), says.
    func writeAnswer(_ response: HTTPResponse, to write: PreparedWrite) throws -> WriteAnswer {
        let what = "recipe"
        switch response.status {
        case 200..<300:
            switch ServerAPI.recipeAcknowledgement(response, uuid: write.uuid) {
            case .success(let acknowledged) where acknowledged == write.version:
                return .written(version: acknowledged)
            case .success(let acknowledged):
                throw StepFailure(.permanent, "recipe: the server acknowledged version \(acknowledged) instead of \(write.version ?? 0)")
            case .failure(let unexpected):
                throw StepFailure(unexpected.stepKind, "\(what): \(unexpected)")
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

    /// `DELETE /v1/recipes/{uuid}` with `If-Match`, or the same in the run's batch; `204`, or a contract error saying
    /// it is already gone, is done.
    func delete(_ recipe: UUID, base: Int64) async throws -> DeleteAnswer {
        if try await serverFeatures().recipesBatch {
            do {
                return try deleteAnswer(try await inBatch(.delete(recipe, base: base)))
            } catch {
                guard features.isRefused("recipes-batch") else { throw error }  // sent on its own below
            }
        }
        return try deleteAnswer(try await send(api.deleteRecipe(uuid: recipe, base: base), what: "delete"))
    }

    /// What `response`, the answer to a `DELETE` (or its result in a batch), says.
    func deleteAnswer(_ response: HTTPResponse) throws -> DeleteAnswer {
        if response.status == 412 { return .stale }
        guard (200..<300).contains(response.status) || response.status == 404 || response.status == 410 else {
            throw failure(response, what: "delete")
        }
        if case .failure(let unexpected) = ServerAPI.deletionAcknowledgement(response) {
            throw StepFailure(unexpected.stepKind, "delete: \(unexpected)")
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

    /// `GET` of the image from server.url when the recipe names it in the server's own form (whatever host it names:
    /// `ServerAPI.downloadURL`); else at the URL it names (a document another app wrote may name one elsewhere:
    /// fetched there without the token, which goes to server.url's origin only); by its SHA-256 here when it names none.
    func download(
        _ image: RecipeImage, of recipe: UUID, into download: ImageDownload, progress: (@Sendable (Int64) -> Void)?
    ) async throws {
        let url = api.downloadURL(of: image)
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
