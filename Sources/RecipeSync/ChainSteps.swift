import Foundation
import OperationEngine
import RecipeModels
import RecipeStore
import Transport

/// The steps of one recipe's chain, written once against a `Destination`: its image (asked whether the destination
/// lacks it, then written from the media copy), the recipe (written to the outbox, then to the destination; a stale
/// answer read, merged and written again, `ChainRound`), or its deletion. The steps write to the store, the outbox and
/// `images/`; the destination only asks. A failure comes out as a `StepFailure` the retry policy and
/// `ChainConclusion` understand.
struct ChainSteps: Sendable {
    let destination: any Destination
    let store: RecipeStore
    let settings: SyncSettings
    let outbox: Outbox
    let recorder: EndRecorder
    let poller: LeasePoller
    /// Reports a step of a round the run sees: the server's copy merged into `claim`'s draft, what comes next in words.
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

    /// The recipe step: writes `claim`'s revision naming `image` (the destination's name of it, nil for none), and
    /// goes on as `ChainRound` decides after each answer: a stale write's copy read, merged and written again.
    func sendRecipe(_ claim: SyncClaim, image: String?) async throws -> PushResult {
        var claim = claim
        var image = image
        var round = 1
        var result: PushResult?
        var copy: RecipeRead?
        var event = try await write(claim, image: image, result: &result, copy: &copy)
        while true {
            switch ChainRound.next(after: event, round: round, deletion: false) {
            case .finish:
                guard let result else { throw StepFailure(.later, "recipe: the write ended without an answer") }
                return result
            case .read:
                copy = try await destination.read(claim.recipe.uuid)
                event = .read
            case .merge:
                let merge = try await self.merge(copy, into: claim)
                if case .synced(let revision, let version, let base) = merge {
                    result = .uploaded(revision: revision, version: version, base: base)
                }
                if case .push(let merged) = merge {
                    // The merge keeps this chain's image (sent by its image step, not yet recorded) or takes the
                    // server's (which the merge recorded).
                    let sent = image.flatMap(RecipeImage.init(serverURL:))
                    image = knownImageName(of: merged.recipe)
                        ?? (sent != nil && sent?.sha256 == merged.recipe.image?.sha256 ? image : nil)
                    report(merged, .recipe, "another device wrote first; sending the merge as revision "
                        + "\(merged.revision) (round \(round + 1) of \(ChainRound.maxRounds))")
                    claim = merged
                }
                event = .merged(ChainRound.Merge(merge))
            case .write:
                round += 1
                copy = nil
                event = try await write(claim, image: image, result: &result, copy: &copy)
            case .fail(let failure):
                throw failure
            }
        }
    }

    /// One write of `claim`'s revision: the outbox file of exactly this revision, the lease check (`mayUpload`: as the
    /// poller last saw it, or the database), then the destination's conditional write.
    private func write(
        _ claim: SyncClaim, image: String?, result: inout PushResult?, copy: inout RecipeRead?
    ) async throws -> ChainRound.Event {
        // Never a document without the image the recipe has: the server would take it as the image removed.
        if claim.recipe.image != nil, image == nil {
            throw StepFailure(.later, "recipe: its image is not on the server yet; the next run sends the image first")
        }
        let prepared = try destination.prepareWrite(claim.recipe, image: image, base: claim.recipe.sync.serverVersion)
        let sending: Bool
        do {
            // The file of a chain that already succeeded is recycled (see `Outbox.write`).
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
        case .written(let version):
            var fields = RecipeFields(claim.recipe)
            fields.image = image.flatMap(RecipeImage.init(serverURL:))
            result = .uploaded(revision: claim.revision, version: version, base: fields)
            return .done
        case .stale(let known):
            copy = known
            return .stale(copyKnown: known != nil)
        case .gone(let version):
            copy = .deleted(version: version)
            return .stale(copyKnown: true)
        case .refused(let reason):
            throw StepFailure(.permanent, reason)
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
    /// gone, counts as deleted. A stale answer is read and merged (`ChainRound`): changed on the server and deleted
    /// here is a conflict for a person.
    func sendDelete(_ claim: SyncClaim) async throws -> PushResult {
        // Sent before without an answer (the server's version unknown here): what the server has decides.
        guard let base = try await deletionBase(claim) else { return .deleted }
        var event: ChainRound.Event
        switch try await destination.delete(claim.recipe.uuid, base: base) {
        case .deleted: event = .done
        case .stale: event = .stale(copyKnown: false)
        }
        var copy: RecipeRead?
        while true {
            switch ChainRound.next(after: event, round: 1, deletion: true) {
            case .finish:
                return .deleted
            case .read:
                copy = try await destination.read(claim.recipe.uuid)
                event = .read
            case .merge:
                event = .merged(ChainRound.Merge(try await merge(copy, into: claim)))
            case .write:
                throw StepFailure(.later, "the recipe changed on the server while its deletion was sent; a later run goes on")
            case .fail(let failure):
                throw failure
            }
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

/// What a chain's last step achieved.
enum PushResult: Sendable, Equatable {
    /// The server has `revision` as its `version`, whose fields are `base`.
    case uploaded(revision: Int64, version: Int64, base: RecipeFields)
    /// The server has the deletion.
    case deleted
}
