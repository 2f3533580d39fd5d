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

/// Concludes a recipe's chain when its group finishes.
struct ChainEndObserver: ProcedureObserver {
    let run: SyncRun
    let chain: UploadChain

    func procedure(_ procedure: AnyProcedure, didFinishWith outcome: ProcedureOutcome) {
        let (step, attempts, confirmed, pushed) = chain.ending(outcome)
        run.conclude(chain.claim, outcome, step: step, attempts: attempts, confirmedImage: confirmed, pushed: pushed)
        run.registry.remove(chain.claim.recipe.id)
    }
}
