import Foundation
import OperationEngine
import RecipeModels
import RecipeStore
import Transport

/// The steps of a recipe's chains, written once against a `Destination`: its image (asked whether the destination
/// lacks it, then written from the media copy), the recipe (written to the outbox, then to the destination), or its
/// deletion; after a stale answer, the `MergeChain`'s read, merge and write. The steps write to the store, the outbox
/// and `images/`; the destination only asks. A failure comes out as a `StepFailure` the retry policy and
/// `ChainConclusion` understand.
struct ChainSteps: Sendable {
    let destination: any Destination
    let store: RecipeStore
    let settings: SyncSettings
    let outbox: Outbox
    let recorder: EndRecorder
    let poller: LeasePoller
    /// Reports a merge the run sees: the server's copy merged into `claim`'s draft, to be written next (in words).
    let report: @Sendable (SyncClaim, SyncEvent.Step, String) -> Void

    /// The image step: asks the destination whether it lacks the image (a crash after an upload never sends the bytes
    /// again), then writes it from the media copy (or, for an image another server had, its file in `images/`);
    /// returns the destination's name of it (recorded with the recipe step's first commit).
    func sendImage(_ image: ImageReference, of claim: SyncClaim, _ procedure: ProcedureContext) async throws -> String {
        let uuid = claim.recipe.uuid
        guard try await destination.missingImages([image.sha256], of: uuid).contains(image.sha256) else {
            return destination.imageName(sha256: image.sha256, of: uuid)
        }
        guard let path = store.localImagePath(image) else {
            throw StepFailure(.permanent,
                "image \(image.sha256.prefix(12)): the local copy of the image is gone; attach it again with `image set`")
        }
        return try await destination.putImage(image, of: uuid, from: path) { progress in
            procedure.reportProgress(completed: progress.sent, total: progress.total)
        }
    }

    /// The recipe step: one conditional write of `claim`'s revision naming `image` (the destination's name of it, nil
    /// for none), in write round `round`. A stale answer is the step's result: the chain goes on with a `MergeChain`.
    func sendRecipe(_ claim: SyncClaim, image: String?, round: Int = 1) async throws -> StepResult {
        // Never a document without the image the recipe has: the server would take it as the image removed.
        if claim.recipe.image != nil, image == nil {
            throw StepFailure(.later, "recipe: its image is not on the server yet; the next run sends the image first")
        }
        let prepared = try destination.prepareWrite(claim.recipe, image: image, base: claim.recipe.sync.serverVersion)
        let sending: Bool
        do {
            // The outbox file of exactly this revision (that of a chain that already succeeded is recycled, see
            // `Outbox.write`), then the lease: as the poller last saw it, or the database.
            let spare = recorder.takeSpareOutboxFile()
            _ = try outbox.write(
                prepared.document, uuid: claim.recipe.uuid.lowercasedString, revision: claim.revision, recycling: spare)
            sending = try poller.mayUpload(claim)
        } catch {
            throw StepFailure(.transient(retryAfter: nil), "cannot prepare the upload: \(error.localizedDescription)")
        }
        guard sending else {
            throw StepFailure(.leaseLost, "the recipe was deleted or taken over by another process meanwhile")
        }
        switch try await destination.write(prepared) {
        case .written(let version, let named):
            var fields = RecipeFields(claim.recipe)
            fields.image = (named ?? image).flatMap(RecipeImage.init(serverURL:))
            return .final(.uploaded(revision: claim.revision, version: version, base: fields))
        case .stale(let copy):
            return .stale(StaleWrite(claim: claim, image: image, copy: copy, round: round))
        case .gone(let version):
            return .stale(StaleWrite(claim: claim, image: image, copy: .deleted(version: version), round: round))
        case .refused(let reason):
            throw StepFailure(.permanent, reason)
        }
    }

    /// The read step after a stale write or deletion: the destination's copy.
    func readCopy(_ stale: StaleWrite) async throws -> RecipeRead {
        try await destination.read(stale.claim.recipe.uuid)
    }

    /// The merge step: merges `copy` into the draft of `stale` and says, as `ChainRound` decides, whether the merge is
    /// written (reported as a round the run sees) or the chain ends (synced, deleted, or a failure: a conflict for a
    /// person, the bound on rounds reached).
    func mergeCopy(_ copy: RecipeRead?, _ stale: StaleWrite) async throws -> AfterMerge {
        let merge = try await self.merge(copy, into: stale.claim)
        let deletion = stale.claim.isDeletion
        switch ChainRound.next(after: .merged(ChainRound.Merge(merge)), round: stale.round, deletion: deletion) {
        case .write:
            guard case .push(let merged) = merge else { throw StepFailure(.later, "recipe: nothing merged to write") }
            // The merge keeps this chain's image (sent by its image step, not yet recorded) or takes the server's
            // (which the merge recorded).
            let sent = stale.image.flatMap(RecipeImage.init(serverURL:))
            let image = knownImageName(of: merged.recipe)
                ?? (sent != nil && sent?.sha256 == merged.recipe.image?.sha256 ? stale.image : nil)
            report(merged, .merge, "another device wrote first; sending the merge as revision "
                + "\(merged.revision) (round \(stale.round + 1) of \(ChainRound.maxRounds))")
            return .write(merged, image: image)
        case .finish:
            if !deletion, case .synced(let revision, let version, let base) = merge {
                return .final(.uploaded(revision: revision, version: version, base: base))
            }
            return .final(.deleted)
        case .fail(let failure):
            throw failure
        case .read, .merge:
            throw StepFailure(.later, "recipe: the merge asked for another merge; a later run goes on")
        }
    }

    /// The write step after a merge: the merge written in the next round, or the end the merge came to.
    func writeMerge(_ after: AfterMerge, round: Int) async throws -> StepResult {
        switch after {
        case .final(let result): .final(result)
        case .write(let merged, let image): try await sendRecipe(merged, image: image, round: round + 1)
        }
    }

    /// Merges the destination's copy `read` into `claim`'s draft (`RecipeStore.mergeAfterStale`), the copy's image
    /// downloaded first when this device lacks it; a destination that never had the recipe (another server than the
    /// one the draft was based on) makes it one to write as new.
    private func merge(_ read: RecipeRead?, into claim: SyncClaim) async throws -> StaleMerge {
        let inUse = store.images.markInUse()  // its image, downloaded first, is no garbage until the merge names it
        defer { withExtendedLifetime(inUse) {} }
        let copy: ServerCopy
        switch read {
        case .live(let version, let fields)?:
            if let image = fields.image, store.images.image(sha256: image.sha256) == nil {
                _ = try await downloadImage(image, of: claim.recipe.uuid)
            }
            copy = .live(version: version, fields: fields)
        case .deleted(let version)?:
            copy = .deleted(version: version)
        case .absent?, nil:
            do {
                return .push(try store.pushAsNew(claim, owner: settings.owner))
            } catch {
                throw StepFailure(.transient(retryAfter: nil), "cannot merge the server's copy: \(error.localizedDescription)")
            }
        }
        do {
            return try store.mergeAfterStale(claim, copy: copy, owner: settings.owner)
        } catch {
            throw StepFailure(.transient(retryAfter: nil), "cannot merge the server's copy: \(error.localizedDescription)")
        }
    }

    /// The delete step: a deletion conditional on the destination still having the base version; done, or already
    /// gone, counts as deleted. A stale answer is the step's result: the chain goes on with a `MergeChain` (read,
    /// merge: changed on the server and deleted here is a conflict for a person).
    func sendDelete(_ claim: SyncClaim) async throws -> StepResult {
        // Sent before without an answer (the server's version unknown here): what the server has decides.
        guard let base = try await deletionBase(claim) else { return .final(.deleted) }
        switch try await destination.delete(claim.recipe.uuid, base: base) {
        case .deleted: return .final(.deleted)
        case .stale: return .stale(StaleWrite(claim: claim, image: nil, copy: nil, round: 1))
        }
    }

    /// The version a deletion is based on: the recipe's server version, or, when a write of it went without an
    /// answer, the version the destination has (nil when it has none: there is nothing to delete there).
    func deletionBase(_ claim: SyncClaim) async throws -> Int64? {
        if let base = claim.recipe.sync.serverVersion { return base }
        switch try await destination.read(claim.recipe.uuid) {
        case .live(let version, _): return version
        case .deleted, .absent: return nil
        }
    }

    /// Downloads `image` of recipe `uuid` into `images/`: streamed to a temporary file, its SHA-256 checked, renamed
    /// into place whole (see `ImageLibrary`).
    func downloadImage(_ image: RecipeImage, of uuid: UUID) async throws -> ImageReference {
        let download = try await fetchImage(image, of: uuid)
        do {
            return try store.images.install(download)
        } catch {
            throw StepFailure(.permanent, "image \(image.sha256.prefix(12)): \(error.localizedDescription)")
        }
    }

    /// Downloads `image` of recipe `uuid` into a temporary file of `images/`, its SHA-256 and format checked, for the
    /// caller to install (`ImageLibrary.install`) or discard. A wrong or oversized body fails permanently.
    func fetchImage(
        _ image: RecipeImage, of uuid: UUID, progress: (@Sendable (Int64) -> Void)? = nil
    ) async throws -> ImageDownload {
        let what = "image \(image.sha256.prefix(12))"
        let download: ImageDownload
        do {
            download = try store.images.beginDownload(sha256: image.sha256)
        } catch {
            throw StepFailure(.transient(retryAfter: nil), "\(what): \(error.localizedDescription)")
        }
        do {
            try await destination.download(image, of: uuid, into: download, progress: progress)
        } catch {
            download.discard()
            if let refusal = download.refusal { throw StepFailure(.permanent, "\(what): \(refusal)") }
            throw error
        }
        do {
            _ = try download.check()
        } catch {
            throw StepFailure(.permanent, "\(what): \(error.localizedDescription)")
        }
        return download
    }

    /// The destination's name of `recipe`'s image, when the destination has that image (nil: none, or not uploaded):
    /// its own name, whatever name the image was recorded under (another server's, or this one's under another host).
    func knownImageName(of recipe: Recipe) -> String? {
        guard let image = recipe.image, image.sha256 == recipe.sync.remoteImageSHA256, recipe.sync.remoteImageURL != nil
        else { return nil }
        return destination.imageName(sha256: image.sha256, of: recipe.uuid)
    }
}

/// What a write or deletion step came to: the chain's end, or a stale answer the chain goes on from.
enum StepResult: Sendable, Equatable {
    /// The chain ends so.
    case final(PushResult)
    /// Another writer came first: a `MergeChain` reads, merges and writes again.
    case stale(StaleWrite)
}

/// A write or deletion answered stale: what the merge after it needs.
struct StaleWrite: Sendable, Equatable {
    /// The claim as written (after a merge, the merge's).
    let claim: SyncClaim
    /// The destination's name of the image the write named.
    let image: String?
    /// The destination's copy when its answer carried one (else it is read).
    let copy: RecipeRead?
    /// The write round it was (from 1; at most `ChainRound.maxRounds`).
    let round: Int
}

/// What the merge step decided.
enum AfterMerge: Sendable, Equatable {
    /// Write the merge, naming this image.
    case write(SyncClaim, image: String?)
    /// The chain ends so (the server had the draft, or the deletion is done).
    case final(PushResult)
}

/// What a chain's last step achieved.
enum PushResult: Sendable, Equatable {
    /// The server has `revision` as its `version`, whose fields are `base`.
    case uploaded(revision: Int64, version: Int64, base: RecipeFields)
    /// The server has the deletion.
    case deleted
}

extension ConfirmedImage {
    /// `confirmed` under the name the recipe write gave the image, when the write renamed it (Mealie: the upload
    /// happens in the write, and the name holds what Mealie serves after it: `WriteAnswer.written(version:image:)`).
    static func named(_ confirmed: ConfirmedImage?, by result: StepResult?) -> ConfirmedImage? {
        guard let confirmed, case .final(.uploaded(_, _, let base))? = result, let image = base.image,
            image.sha256 == confirmed.sha256, case .server(let url) = image.source
        else { return confirmed }
        return ConfirmedImage(sha256: confirmed.sha256, url: url)
    }
}
