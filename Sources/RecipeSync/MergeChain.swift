import Foundation
import OperationEngine
import RecipeModels
import RecipeStore

/// What follows a stale write or deletion: the steps that read the destination's copy, merge it into the draft and
/// write the merge, as engine procedures the run sees (their starts, retries and ends are reported like any step's).
///
/// ```
/// GroupProcedure "merge #7"     condition: MutualExclusion("recipe:<uuid>")
///   ├─ read step    Procedure<RecipeRead>   conditions: reachability   retry: the run's policy   (unless the stale
///   │                                                                   answer carried the copy: Mealie)
///   ├─ merge step   Procedure<AfterMerge>   input: the copy            (RecipeStore.mergeAfterStale; `ChainRound`)
///   └─ write step   Procedure<StepResult>   input: the merge           conditions: reachability   (a deletion has none)
/// ```
///
/// The steps continue the attempt count of the chain before (8 attempts for the whole recipe). When the write is
/// stale again, another merge chain follows, up to `ChainRound.maxRounds` writes; the recipe is concluded once, when
/// the last chain ends.
struct MergeChain: Sendable {
    /// The claim the run made: the conclusion is about it.
    let claim: SyncClaim
    /// The group: what the queue runs and what is cancelled.
    let group: GroupProcedure<Void>
    /// The read step, when the copy must be read.
    let readStep: Procedure<RecipeRead>?
    /// The merge step.
    let mergeStep: Procedure<AfterMerge>
    /// The write step (none after a stale deletion: a deletion is not sent again in the same run).
    let writeStep: Procedure<StepResult>?
    /// The image the chain before confirmed, recorded with the end.
    private let confirmed: ConfirmedImage?
    /// The attempts counted before this chain.
    private let attempts: Int

    /// Builds the chain after `stale`, the answer to a chain of `claim` that counted `attempts` and confirmed
    /// `confirmed` on the way.
    init(_ claim: SyncClaim, after stale: StaleWrite, confirmed: ConfirmedImage?, attempts: Int, _ parts: UploadChain.Parts) {
        self.claim = claim
        self.confirmed = confirmed
        self.attempts = attempts
        let id = claim.recipe.id
        let conditions: [any ProcedureCondition] = parts.reachability.map { [$0] } ?? []
        func tags(_ step: SyncEvent.Step) -> [String: String] { ["id": String(id), "step": step.rawValue] }
        let steps = parts.steps
        let deletion = claim.isDeletion

        var children: [AnyProcedure] = []
        if ChainRound.next(after: .stale(copyKnown: stale.copy != nil), round: stale.round, deletion: deletion) == .read {
            let read = Procedure<RecipeRead>(
                name: "read #\(id)", conditions: conditions, retry: parts.retry, tags: tags(.read),
                previousAttempts: attempts
            ) { _ in try await steps.readCopy(stale) }
            read.addObserver(parts.observe(stale.claim, .read))
            readStep = read
            mergeStep = Procedure<AfterMerge>(
                name: "merge #\(id)", input: read, retry: parts.retry, tags: tags(.merge), previousAttempts: attempts,
                continuesAttempts: true
            ) { copy, _ in try await steps.mergeCopy(copy, stale) }
            children.append(read.erased)
        } else {
            readStep = nil
            mergeStep = Procedure<AfterMerge>(
                name: "merge #\(id)", retry: parts.retry, tags: tags(.merge), previousAttempts: attempts
            ) { _ in try await steps.mergeCopy(stale.copy, stale) }
        }
        mergeStep.addObserver(parts.observe(stale.claim, .merge))
        children.append(mergeStep.erased)
        if deletion {
            writeStep = nil
        } else {
            let write = Procedure<StepResult>(
                name: "recipe #\(id)", input: mergeStep, priority: .high, conditions: conditions, retry: parts.retry,
                tags: tags(.recipe), previousAttempts: attempts, continuesAttempts: true
            ) { after, _ in try await steps.writeMerge(after, round: stale.round) }
            write.addObserver(parts.observe(stale.claim, .recipe))
            writeStep = write
            children.append(write.erased)
        }
        group = GroupProcedure(
            name: "merge #\(id)", conditions: [MutualExclusion("recipe:\(claim.recipe.uuid.lowercasedString)")],
            tags: ["id": String(id)], children: children)
    }

    /// How the chain ended, once its group has: the step that ended it (the first that did not succeed, else the
    /// last), its attempts, the image confirmed before, and what the last step achieved (or the stale answer the next
    /// merge chain goes on from).
    func ending(_ outcome: ProcedureOutcome) -> ChainEnd {
        let last: SyncEvent.Step = claim.isDeletion ? .delete : .recipe
        if let readStep, readStep.output == nil {
            return ChainEnd(step: .read, attempts: max(readStep.erased.attempt, attempts), confirmed: confirmed)
        }
        guard let after = mergeStep.output else {
            return ChainEnd(step: .merge, attempts: max(mergeStep.erased.attempt, attempts), confirmed: confirmed)
        }
        guard let writeStep else {
            let pushed: PushResult? = if case .final(let result) = after { result } else { nil }
            return ChainEnd(step: last, attempts: max(mergeStep.erased.attempt, attempts), confirmed: confirmed, pushed: pushed)
        }
        return ChainEnd(
            step: last, attempts: max(writeStep.erased.attempt, attempts),
            confirmed: ConfirmedImage.named(confirmed, by: writeStep.output), result: writeStep.output)
    }
}

/// How a chain (an `UploadChain` or a `MergeChain`) ended.
struct ChainEnd: Sendable {
    /// The step that ended it.
    var step: SyncEvent.Step
    /// The attempts that step counted (earlier runs included).
    var attempts: Int
    /// The image the destination confirmed on the way.
    var confirmed: ConfirmedImage?
    /// What the chain achieved, when it ended the recipe's work.
    var pushed: PushResult?
    /// The stale answer a merge chain goes on from.
    var stale: StaleWrite?

    init(step: SyncEvent.Step, attempts: Int, confirmed: ConfirmedImage?, pushed: PushResult? = nil, stale: StaleWrite? = nil) {
        self.step = step
        self.attempts = attempts
        self.confirmed = confirmed
        self.pushed = pushed
        self.stale = stale
    }

    /// The end of a chain whose last step answered `result`.
    init(step: SyncEvent.Step, attempts: Int, confirmed: ConfirmedImage?, result: StepResult?) {
        switch result {
        case .final(let pushed)?: self.init(step: step, attempts: attempts, confirmed: confirmed, pushed: pushed)
        case .stale(let stale)?: self.init(step: step, attempts: attempts, confirmed: confirmed, stale: stale)
        case nil: self.init(step: step, attempts: attempts, confirmed: confirmed)
        }
    }
}
