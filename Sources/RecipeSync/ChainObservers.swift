import Foundation
import OperationEngine
import RecipeModels
import RecipeStore

/// Turns a step's engine events into sync events: start, throttled progress, retries (handed to the end recorder,
/// which writes the attempt at once, so that `kill -9` keeps the count) and waits for the network.
struct StepObserver: ProcedureObserver {
    let run: SyncRun
    let claim: SyncClaim
    let step: SyncEvent.Step

    func procedureDidStart(_ procedure: AnyProcedure) {
        run.emit(run.makeEvent(.start, claim, step: step, total: totalBytes, attempt: procedure.attempt))
    }

    func procedure(_ procedure: AnyProcedure, didProgress completed: Int64, of total: Int64?) {
        // Nothing sent yet says no more than the start event did (and was a fifth of a plain log's lines).
        guard completed > 0 else { return }
        let now = run.settings.now()
        let admitted = run.throttle.withLock { $0.admit(claim.recipe.id, completed: completed, total: total, at: now) }
        guard admitted else { return }
        run.emit(run.makeEvent(.progress, claim, step: step, bytes: completed, total: total, now: now))
    }

    func procedure(_ procedure: AnyProcedure, willRetryAfter delay: Duration, attempt: Int, error: any Error) {
        let now = run.settings.now()
        let seconds = (delay / .seconds(1))
        let message = ChainConclusion.describeWait(error, cap: run.retryPolicy.maxRetryAfter)
        run.recorder.recordAttempt(
            id: claim.recipe.id, attempts: attempt - 1, nextAttemptAt: now.addingTimeInterval(seconds), error: message)
        run.emit(run.makeEvent(.retry, claim, step: step, attempt: attempt, delay: seconds, error: message, now: now))
    }

    func procedure(_ procedure: AnyProcedure, willWaitFor delay: Duration, because error: any Error) {
        run.emit(run.makeEvent(
            .offline, claim, step: step, delay: (delay / .seconds(1)), error: ChainConclusion.describe(error)))
    }

    private var totalBytes: Int64? {
        step == .image ? claim.recipe.image?.byteCount : nil
    }
}

/// Concludes a recipe's chain when its group finishes, or, when its last step was answered stale, goes on with the
/// `MergeChain` after it (registered and queued before this group counts as finished, so the run waits for it).
struct ChainEndObserver: ProcedureObserver {
    let run: SyncRun
    let claim: SyncClaim
    let ending: @Sendable (ProcedureOutcome) -> ChainEnd
    let parts: UploadChain.Parts
    let queue: ProcedureQueue

    func procedure(_ procedure: AnyProcedure, didFinishWith outcome: ProcedureOutcome) {
        let end = ending(outcome)
        if outcome.isSuccess, let stale = end.stale {
            let next = MergeChain(claim, after: stale, confirmed: end.confirmed, attempts: end.attempts, parts)
            queue.add(run.start(next.group, of: claim, ending: next.ending, parts: parts, queue: queue))
            return
        }
        run.conclude(claim, outcome, step: end.step, attempts: end.attempts, confirmedImage: end.confirmed, pushed: end.pushed)
        run.registry.remove(claim.recipe.id)
    }
}
