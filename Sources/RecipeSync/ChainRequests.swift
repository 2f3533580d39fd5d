import Foundation
import OperationEngine
import RecipeModels
import RecipeStore
import Transport

/// The requests of one recipe's chain, and what their answers mean for it: the image (`HEAD`, then `PUT` from the
/// media copy), the recipe's JSON (written to the outbox, then `PUT`), or the `DELETE`. A failure comes out as a
/// `StepFailure` the retry policy and `ChainConclusion` understand.
struct ChainRequests: Sendable {
    let api: ServerAPI
    let client: HTTPClient
    let reachability: Reachability
    let store: RecipeStore
    let settings: SyncSettings
    let outbox: Outbox
    let recorder: EndRecorder
    let poller: LeasePoller

    /// Sends `request`, turning a failure without an answer into a `StepFailure`.
    func send(_ request: HTTPRequest, what: String,
              progress: (@Sendable (TransferProgress) -> Void)? = nil,
              sink: (any ResponseBodySink)? = nil) async throws -> HTTPResponse {
        do {
            return try await reachability.transfer(to: api.baseURL) { () async throws(TransportError) in
                try await client.send(request, progress: progress, streamingSuccessTo: sink)
            }
        } catch {
            if error.kind == .halted {
                // Another request's credentials were refused and the client sends nothing more: the same refusal
                // for this chain (the run stops, the recipe stays as it was).
                throw StepFailure(.credentials, "not sent: the server refused the credentials")
            }
            if let mistake = setUpMistake(.transport(error.kind, message: error.message)) { throw mistake }
            let outcome = TransferOutcome.classify(.failure(error), now: settings.now(), redacting: settings.token)
            var failure = StepFailure.from(outcome, what: what) ?? StepFailure(.permanent, "\(what): \(error.message)")
            if let advice = StepFailure.advice(for: error.kind) { failure.message += "; " + advice }
            throw failure
        }
    }

    /// The failure an unexpected answer to `request` stands for: a set-up mistake when the answer shows that the
    /// destination is not a recipes server (`DestinationDiagnosis`), else as `TransferOutcome` classifies it.
    func failure(
        _ response: HTTPResponse, what: String, request: DestinationDiagnosis.ContractRequest = .always
    ) -> StepFailure {
        let body = String(decoding: response.body.prefix(512), as: UTF8.self)
        if let mistake = setUpMistake(.answer(status: response.status, request: request, body: body)) { return mistake }
        let outcome = TransferOutcome.classify(.success(response), now: settings.now(), redacting: settings.token)
        return StepFailure.from(outcome, what: what)
            ?? StepFailure(.permanent, "\(what): unexpected answer HTTP \(response.status)")
    }

    /// The set-up mistake `observation` of the server shows, if it shows one: the whole run stops with it.
    func setUpMistake(_ observation: DestinationDiagnosis.Observation) -> StepFailure? {
        guard let destination = DestinationDiagnosis.Destination(url: api.baseURL) else { return nil }
        let diagnosis = DestinationDiagnosis.classify(observation, of: destination)
        guard diagnosis.isSetUpMistake, let words = diagnosis.words else { return nil }
        return StepFailure(.setup, TransferOutcome.redact(words, token: settings.token))
    }

    /// The image step: `HEAD` by SHA-256 (a crash after an upload never sends the bytes again), then `PUT` from
    /// the media copy (or, for an image another server had, its file in `images/`); returns the server's URL (recorded with the recipe step's first commit). Only a `HEAD` with the
    /// image's `ETag`, or a `PUT` answer naming its SHA-256 and URL, counts as the server having it (see
    /// `UnexpectedAnswer`).
    func sendImage(_ image: ImageReference, _ procedure: ProcedureContext) async throws -> String {
        let what = "image \(image.sha256.prefix(12))"
        let head = try await send(api.headImage(sha256: image.sha256), what: what)
        if ServerAPI.headConfirmsImage(head, sha256: image.sha256) { return api.imageURL(sha256: image.sha256) }
        guard (200..<300).contains(head.status) || head.status == 404 else { throw failure(head, what: what) }
        guard let path = store.localImagePath(image) else {
            throw StepFailure(
                .permanent, "\(what): the local copy of the image is gone; attach it again with `image set`")
        }
        let request = api.putImage(sha256: image.sha256, path: path, format: image.format)
        let response = try await send(request, what: what) { progress in
            procedure.reportProgress(completed: progress.sent, total: progress.total)
        }
        guard (200..<300).contains(response.status) else { throw failure(response, what: what) }
        switch ServerAPI.imageAcknowledgement(response, sha256: image.sha256) {
        case .success(let url): return url
        case .failure(let unexpected): throw StepFailure(.transient(retryAfter: nil), "\(what): \(unexpected)")
        }
    }

    /// The JSON step: writes the outbox file of exactly this revision, checks that the lease is still this process's
    /// and the recipe not deleted (`mayUpload`: as the poller last saw it, or the database), then `PUT`s the bytes
    /// written as the server's version `base + 1`, conditional on the server still having `base` (docs/http-api.md).
    /// Only an answer naming this recipe and that version counts as acknowledged. A `412` (another device wrote first)
    /// is read, merged and pushed again, at most `maxRounds` times in all (`pushAfterStale`).
    func sendRecipe(_ claim: SyncClaim, imageURL: String?) async throws -> PushResult {
        var claim = claim
        var imageURL = imageURL
        for _ in 1...Self.maxRounds {
            switch try await push(claim, imageURL: imageURL) {
            case .acknowledged(let result):
                return result
            case .stale:
                switch try await mergeServerCopy(into: claim) {
                case .push(let merged):
                    // The merge keeps this chain's image (sent by its image step, not yet recorded) or takes the
                    // server's (whose URL the merge recorded).
                    let sent = imageURL.flatMap(RecipeImage.init(serverURL:))
                    imageURL = Self.knownImageURL(of: merged.recipe)
                        ?? (sent != nil && sent?.sha256 == merged.recipe.image?.sha256 ? imageURL : nil)
                    claim = merged
                case .synced(let revision, let version, let base):
                    return .uploaded(revision: revision, version: version, base: base)
                case .conflict(let conflict):
                    throw StepFailure(.conflict, conflict.summary)
                case .gone:
                    throw StepFailure(.later, "the recipe changed on the server and was taken over or removed meanwhile")
                case .refused(let reason):
                    throw StepFailure(.permanent, "recipe: not sent over the server's copy: " + reason)
                }
            }
        }
        throw StepFailure(
            .later, "another device kept writing this recipe while it was merged (\(Self.maxRounds) rounds); a later run goes on")
    }

    /// How many times a push answered `412` is merged and sent again in one run.
    static let maxRounds = 3

    /// What one push came to.
    private enum PushAnswer {
        case acknowledged(PushResult)
        case stale
    }

    /// One `PUT` of `claim`'s revision.
    private func push(_ claim: SyncClaim, imageURL: String?) async throws -> PushAnswer {
        let what = "recipe"
        // Never a document without the image the recipe has: the server would take it as the image removed.
        if claim.recipe.image != nil, imageURL == nil {
            throw StepFailure(.later, "recipe: its image is not on the server yet; the next run sends the image first")
        }
        let base = claim.recipe.sync.serverVersion
        guard let version = ServerNumbers.next(after: base) else {
            throw StepFailure(.permanent, "recipe: the server version it is based on, \(base ?? 0), is out of range "
                + "(recipes takes 1 to \(ServerNumbers.maximum)); the server sent a version no server makes")
        }
        let document = RecipeDocument.encode(claim.recipe, version: version, imageURL: imageURL)
        let sending: Bool
        do {
            // The file of a chain that already succeeded is recycled (see `Outbox.write`).
            let spare = recorder.takeSpareOutboxFile()
            _ = try outbox.write(
                document, uuid: claim.recipe.uuid.lowercasedString, revision: claim.revision, recycling: spare)
            sending = try poller.mayUpload(claim)
        } catch {
            throw StepFailure(.transient(retryAfter: nil), "cannot prepare the upload: \(error.localizedDescription)")
        }
        guard sending else {
            throw StepFailure(.leaseLost, "the recipe was deleted or taken over by another process meanwhile")
        }
        let request = api.putRecipe(uuid: claim.recipe.uuid, document: document, base: base)
        let response = try await send(request, what: what)
        switch response.status {
        case 200..<300:
            switch ServerAPI.recipeAcknowledgement(response, uuid: claim.recipe.uuid) {
            case .success(let acknowledged) where acknowledged == version:
                var fields = RecipeFields(claim.recipe)
                fields.image = imageURL.flatMap(RecipeImage.init(serverURL:))
                return .acknowledged(.uploaded(revision: claim.revision, version: version, base: fields))
            case .success(let acknowledged):
                throw StepFailure(.permanent, "recipe: the server acknowledged version \(acknowledged) instead of \(version)")
            case .failure(let unexpected):
                throw StepFailure(.transient(retryAfter: nil), "\(what): \(unexpected)")
            }
        case 412:
            return .stale
        default:
            throw failure(response, what: what)
        }
    }

    /// Reads the server's copy of `claim`'s recipe (its image downloaded first when this device lacks it) and merges
    /// it into the draft (`RecipeStore.mergeAfterStale`).
    private func mergeServerCopy(into claim: SyncClaim) async throws -> StaleMerge {
        let inUse = store.images.markInUse()  // its image, downloaded first, is no garbage until the merge names it
        defer { withExtendedLifetime(inUse) {} }
        let copy = try await serverCopy(of: claim.recipe.uuid)
        do {
            guard let copy else { return .push(try store.pushAsNew(claim, owner: settings.owner)) }
            return try store.mergeAfterStale(claim, copy: copy, owner: settings.owner)
        } catch {
            throw StepFailure(.transient(retryAfter: nil), "cannot merge the server's copy: \(error.localizedDescription)")
        }
    }

    /// The server's copy of recipe `uuid` (`GET /v1/recipes/{uuid}`), its image in `images/`; nil when the server
    /// never had it (a server other than the one this draft was based on).
    func serverCopy(of uuid: UUID) async throws -> ServerCopy? {
        let what = "recipe"
        let response = try await send(api.getRecipe(uuid: uuid), what: what)
        switch response.status {
        case 200:
            guard let recipe = ServerRecipe(document: response.body), recipe.identifier == uuid else {
                throw StepFailure(.transient(retryAfter: nil), "\(what): the server's copy is not a recipe document it could have stored")
            }
            if let image = recipe.fields.image, let url = image.serverURL, store.images.image(sha256: image.sha256) == nil {
                _ = try await downloadImage(sha256: image.sha256, url: url)
            }
            return .live(version: recipe.version, fields: recipe.fields)
        case 410:
            guard let version = ServerAPI.tombstoneVersion(inAnswer: response.body) else {
                throw failure(response, what: what)
            }
            return .deleted(version: version)
        case 404:
            return nil
        default:
            throw failure(response, what: what)
        }
    }

    /// Downloads image `sha256` from `url` into `images/`: streamed to a temporary file, its SHA-256 checked, renamed
    /// into place whole (see `ImageLibrary`).
    func downloadImage(sha256: String, url: String) async throws -> ImageReference {
        let download = try await fetchImage(sha256: sha256, url: url)
        do {
            return try store.images.install(download)
        } catch {
            throw StepFailure(.permanent, "image \(sha256.prefix(12)): \(error.localizedDescription)")
        }
    }

    /// Downloads image `sha256` from `url` into a temporary file of `images/`, its SHA-256 and format checked, for the
    /// caller to install (`ImageLibrary.install`) or discard. A wrong or oversized body fails permanently.
    func fetchImage(sha256: String, url: String, progress: (@Sendable (Int64) -> Void)? = nil) async throws -> ImageDownload {
        let what = "image \(sha256.prefix(12))"
        let download: ImageDownload
        do {
            download = try store.images.beginDownload(sha256: sha256)
        } catch {
            throw StepFailure(.transient(retryAfter: nil), "\(what): \(error.localizedDescription)")
        }
        let sink = DownloadSink(download, progress: progress)
        let response: HTTPResponse
        do {
            response = try await send(api.getImage(url: url), what: what, sink: sink)
        } catch let failure as StepFailure {
            download.discard()
            if let refusal = download.refusal { throw StepFailure(.permanent, "\(what): \(refusal)") }
            throw failure
        }
        guard response.status == 200 else {
            download.discard()
            let elsewhere = RequestOrigin(url: url).map { $0 != RequestOrigin(url: api.baseURL) } ?? true
            if elsewhere, [401, 403].contains(response.status) {
                // Sent without the token, which goes to server.url's origin only: not the server refusing it.
                throw StepFailure(.permanent, "\(what): its URL is on another host or port than server.url "
                    + "(\(RequestOrigin(url: url)?.description ?? "elsewhere")), which asked for credentials (HTTP "
                    + "\(response.status)); recipes sends the token to server.url's origin only")
            }
            throw failure(response, what: what, request: .mayBeMissing)
        }
        do {
            _ = try download.check()
        } catch {
            throw StepFailure(.permanent, "\(what): \(error.localizedDescription)")
        }
        return download
    }

    /// The URL the server gave for `recipe`'s image, when the server has that image (nil: none, or not uploaded).
    static func knownImageURL(of recipe: Recipe) -> String? {
        guard let image = recipe.image, image.sha256 == recipe.sync.remoteImageSHA256 else { return nil }
        return recipe.sync.remoteImageURL
    }

    /// The delete step: `DELETE` conditional on the server still having the base version; `204`, or a contract error
    /// saying it is already gone, counts as done. A `412` (the server changed it since) is a conflict for a person:
    /// deleted here, changed on the server.
    func sendDelete(_ claim: SyncClaim) async throws -> PushResult {
        // Sent before without an answer (the server's version unknown here): what the server has decides.
        guard let base = try await deletionBase(claim) else { return .deleted }
        let response = try await send(api.deleteRecipe(uuid: claim.recipe.uuid, base: base), what: "delete")
        if response.status == 412 {
            switch try await mergeServerCopy(into: claim) {
            case .conflict(let conflict): throw StepFailure(.conflict, conflict.summary)
            case .gone, .synced: return .deleted
            case .refused(let reason): throw StepFailure(.permanent, "delete: not sent over the server's copy: " + reason)
            case .push: throw StepFailure(.later, "the recipe changed on the server while its deletion was sent; a later run goes on")
            }
        }
        guard (200..<300).contains(response.status) || response.status == 404 || response.status == 410 else {
            throw failure(response, what: "delete")
        }
        if case .failure(let unexpected) = ServerAPI.deletionAcknowledgement(response) {
            throw StepFailure(.transient(retryAfter: nil), "delete: \(unexpected)")
        }
        return .deleted
    }
}

extension ChainRequests {
    /// The version a deletion is based on: the recipe's server version, or, when a push of it went without an answer,
    /// the version the server has (nil when it has none: there is nothing to delete there).
    func deletionBase(_ claim: SyncClaim) async throws -> Int64? {
        if let base = claim.recipe.sync.serverVersion { return base }
        let response = try await send(api.getRecipe(uuid: claim.recipe.uuid), what: "delete")
        switch response.status {
        case 200:
            guard let recipe = ServerRecipe(document: response.body) else { throw failure(response, what: "delete") }
            return recipe.version
        case 404, 410:
            return nil
        default:
            throw failure(response, what: "delete")
        }
    }
}

/// What a chain's last step achieved.
enum PushResult: Sendable, Equatable {
    /// The server has `revision` as its `version`, whose fields are `base`.
    case uploaded(revision: Int64, version: Int64, base: RecipeFields)
    /// The server has the deletion.
    case deleted
}

/// Hands a download's bytes from the transport to the images folder, counting them for progress.
final class DownloadSink: ResponseBodySink, @unchecked Sendable {
    // @unchecked Sendable: the transport calls `receive` on one thread, in order; nothing else touches `received`.
    private let download: ImageDownload
    private let progress: (@Sendable (Int64) -> Void)?
    private var received: Int64 = 0

    init(_ download: ImageDownload, progress: (@Sendable (Int64) -> Void)?) {
        self.download = download
        self.progress = progress
    }

    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        received += Int64(bytes.count)
        progress?(received)
        return download.receive(bytes)
    }
}
