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
    let reachability: CachedReachability
    let store: RecipeStore
    let settings: SyncSettings
    let outbox: Outbox
    let recorder: EndRecorder
    let poller: LeasePoller

    /// Sends `request`, turning a failure without an answer into a `StepFailure`.
    func send(_ request: HTTPRequest, what: String,
              progress: (@Sendable (TransferProgress) -> Void)? = nil) async throws -> HTTPResponse {
        do {
            return try await client.send(request, progress: progress)
        } catch {
            if error.kind == .halted {
                // Another request's credentials were refused and the client sends nothing more: the same refusal
                // for this chain (the run stops, the recipe stays as it was).
                throw StepFailure(.credentials, "not sent: the server refused the credentials")
            }
            if error.kind == .connectionRefused || error.kind == .connectTimeout { reachability.invalidate() }
            let outcome = TransferOutcome.classify(.failure(error), now: settings.now(), redacting: settings.token)
            var failure = StepFailure.from(outcome, what: what) ?? StepFailure(.permanent, "\(what): \(error.message)")
            if let advice = StepFailure.advice(for: error.kind) { failure.message += "; " + advice }
            throw failure
        }
    }

    /// The failure an unexpected answer stands for.
    func failure(_ response: HTTPResponse, what: String) -> StepFailure {
        let outcome = TransferOutcome.classify(.success(response), now: settings.now(), redacting: settings.token)
        return StepFailure.from(outcome, what: what)
            ?? StepFailure(.permanent, "\(what): unexpected answer HTTP \(response.status)")
    }

    /// The image step: `HEAD` by SHA-256 (a crash after an upload never sends the bytes again), then `PUT` from
    /// the media copy; returns the server's URL (recorded with the recipe step's first commit). Only a `HEAD` with the
    /// image's `ETag`, or a `PUT` answer naming its SHA-256 and URL, counts as the server having it (see
    /// `UnexpectedAnswer`).
    func sendImage(_ image: ImageReference, _ procedure: ProcedureContext) async throws -> String {
        let what = "image \(image.sha256.prefix(12))"
        let head = try await send(api.headImage(sha256: image.sha256), what: what)
        if ServerAPI.headConfirmsImage(head, sha256: image.sha256) { return api.imageURL(sha256: image.sha256) }
        guard (200..<300).contains(head.status) || head.status == 404 else { throw failure(head, what: what) }
        guard let file = image.localFileName else {
            throw StepFailure(
                .permanent, "\(what): the local copy of the image is gone; attach it again with `image set`")
        }
        let request = api.putImage(sha256: image.sha256, path: store.media.path(of: file), format: image.format)
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
    /// written. Only an answer naming this recipe and this revision's version counts as acknowledged.
    func sendRecipe(_ claim: SyncClaim, imageURL: String?) async throws {
        let what = "recipe"
        let document = RecipeDocument.encode(claim.recipe, revision: claim.revision, imageURL: imageURL)
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
        let response = try await send(api.putRecipe(uuid: claim.recipe.uuid, document: document), what: what)
        switch response.status {
        case 200..<300:
            switch ServerAPI.recipeAcknowledgement(response, uuid: claim.recipe.uuid) {
            case .success(let version) where version == claim.revision:
                return
            case .success(let version):
                throw StepFailure(
                    .permanent, "recipe: the server acknowledged version \(version) instead of \(claim.revision)")
            case .failure(let unexpected):
                throw StepFailure(.transient(retryAfter: nil), "\(what): \(unexpected)")
            }
        case 409:
            let version = ServerAPI.version(inAnswer: response.body) ?? claim.revision
            throw StepFailure(
                .conflict(serverVersion: version),
                "recipe: the server has version \(version), newer than local revision \(claim.revision); "
                    + "run `recipes sync \(claim.recipe.id)` to upload the local draft over it")
        default:
            throw failure(response, what: what)
        }
    }

    /// The delete step: `DELETE`; `204`, or a contract error saying it is already gone, counts as done.
    func sendDelete(_ claim: SyncClaim) async throws {
        let response = try await send(api.deleteRecipe(uuid: claim.recipe.uuid), what: "delete")
        guard (200..<300).contains(response.status) || response.status == 404 || response.status == 410 else {
            throw failure(response, what: "delete")
        }
        if case .failure(let unexpected) = ServerAPI.deletionAcknowledgement(response) {
            throw StepFailure(.transient(retryAfter: nil), "delete: \(unexpected)")
        }
    }
}
