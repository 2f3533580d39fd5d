import Foundation
import OperationEngine
import RecipeModels
import RecipeStore

/// One recipe's upload as the seeds build it (`RecipeUploadOperation`): its image, then its JSON — or its deletion —
/// as engine procedures, joined the way the seeds join operations.
///
/// ```
/// GroupProcedure "upload #7"   condition: MutualExclusion("recipe:<uuid>"), held from the first step to the last
///   ├─ image step   Procedure<String>   conditions: reachability   retry: the run's policy   (missing? then put)
///   └─ recipe step  Procedure<StepResult>  input: the image's name, continuing its attempt count   (one write;
///                                          stale: a `MergeChain` follows — read, merge, write again)
/// ```
///
/// The steps are `ChainSteps`' over the run's `Destination`. The recipe step takes the image step's name for the
/// image (the destination's own) as its typed input; a failed, deferred or cancelled image step cancels
/// it through the engine's `NoFailedDependencies`, so the JSON never goes without its image. A recipe whose image the
/// server already has (or that has none) has no image step; a deletion is one `DELETE` step. Cancelling the group
/// (`recipes cancel`, Ctrl-C, a lost lease) cancels whichever step runs.
struct UploadChain: Sendable {
    /// The claim the chain uploads.
    let claim: SyncClaim
    /// The group: what the queue runs and what is cancelled.
    let group: GroupProcedure<Void>
    /// The image step, when there is one.
    let imageStep: Procedure<String>?
    /// The step that sends the recipe's JSON or its deletion.
    let lastStep: Procedure<StepResult>
    /// The image the image step uploads.
    private let image: ImageReference?

    /// The parts every step shares: the steps over the destination, the retry policy, the reachability condition, and what observes
    /// each step.
    struct Parts: Sendable {
        let steps: ChainSteps
        let retry: RetryPolicy
        let reachability: ReachabilityCondition?
        let observe: @Sendable (SyncClaim, SyncEvent.Step) -> any ProcedureObserver
    }

    /// Builds the chain of `claim`.
    init(_ claim: SyncClaim, _ parts: Parts) {
        self.claim = claim
        let id = claim.recipe.id
        let conditions: [any ProcedureCondition] = parts.reachability.map { [$0] } ?? []
        func tags(_ step: SyncEvent.Step) -> [String: String] { ["id": String(id), "step": step.rawValue] }
        let steps = parts.steps

        var children: [AnyProcedure] = []
        if claim.isDeletion {
            imageStep = nil
            image = nil
            lastStep = Procedure<StepResult>(
                name: "delete #\(id)", conditions: conditions, retry: parts.retry, tags: tags(.delete),
                previousAttempts: claim.attempts
            ) { _ in try await steps.sendDelete(claim) }
            lastStep.addObserver(parts.observe(claim, .delete))
        } else if let sending = claim.imageToSend {
            image = sending
            let upload = Procedure<String>(
                name: "image #\(id)", conditions: conditions, retry: parts.retry, tags: tags(.image),
                previousAttempts: claim.attempts
            ) { context in try await steps.sendImage(sending, of: claim, context) }
            upload.addObserver(parts.observe(claim, .image))
            imageStep = upload
            lastStep = Procedure<StepResult>(
                name: "recipe #\(id)", input: upload, priority: .high, conditions: conditions, retry: parts.retry,
                tags: tags(.recipe), previousAttempts: claim.attempts, continuesAttempts: true
            ) { url, _ in try await steps.sendRecipe(claim, image: url) }
            lastStep.addObserver(parts.observe(claim, .recipe))
            children.append(upload.erased)
        } else {
            imageStep = nil
            image = nil
            // The server has this image already (or there is none): the JSON names it as the destination does.
            let known = steps.knownImageName(of: claim.recipe)
            lastStep = Procedure<StepResult>(
                name: "recipe #\(id)", priority: .high, conditions: conditions, retry: parts.retry, tags: tags(.recipe),
                previousAttempts: claim.attempts
            ) { _ in try await steps.sendRecipe(claim, image: known) }
            lastStep.addObserver(parts.observe(claim, .recipe))
        }
        children.append(lastStep.erased)
        group = GroupProcedure(
            name: "upload #\(id)", conditions: [MutualExclusion("recipe:\(claim.recipe.uuid.lowercasedString)")],
            tags: ["id": String(id)], children: children)
    }

    /// How the chain ended, once its group has: the step that ended it (the first that did not succeed, else the
    /// last), the attempts that step counted, the image the server confirmed on the way, and what the last step
    /// achieved (or the stale answer a `MergeChain` goes on from).
    func ending(_ outcome: ProcedureOutcome) -> ChainEnd {
        var confirmed: ConfirmedImage?
        if let imageStep, let image, let url = imageStep.output {
            confirmed = ConfirmedImage(sha256: image.sha256, url: url)
        }
        if let imageStep, confirmed == nil {
            return ChainEnd(step: .image, attempts: max(imageStep.erased.attempt, claim.attempts), confirmed: nil)
        }
        let step: SyncEvent.Step = claim.isDeletion ? .delete : .recipe
        return ChainEnd(
            step: step, attempts: max(lastStep.erased.attempt, claim.attempts),
            confirmed: ConfirmedImage.named(confirmed, by: lastStep.output), result: lastStep.output)
    }
}
