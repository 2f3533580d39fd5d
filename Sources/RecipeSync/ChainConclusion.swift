import Foundation
import OperationEngine
import RecipeModels
import RecipeStore

/// How one recipe's chain ended, decided as a plain function of what the engine reported: what to record, what to
/// tell the person, how it counts, and whether the whole run must stop.
///
/// `ChainConclusion.decide` is pure (no store, no clock, no engine): `(claim, outcome, attempts, stop reason, now)`
/// in, a conclusion out; `SyncRun`'s end recorder carries it out.
struct ChainConclusion: Sendable {
    /// What the recipe's state machine is told.
    var result: ChainResult
    /// The events to emit, in order (a deferral announces its retry before the closing `skipped`).
    var events: [SyncEvent]
    /// How it counts in the run's summary; a success is counted once its end is recorded (an edit made meanwhile
    /// makes it count as waiting), so it adds nothing here.
    var tally: SyncSummary
    /// Why every other chain of the run must stop too (refused credentials), if it must.
    var stopsRun: StopReason?

    /// What ended the chain, as the engine reported it.
    struct Ending: Sendable {
        /// The recipe's claim.
        var claim: SyncClaim
        /// The outcome of the chain's group.
        var outcome: ProcedureOutcome
        /// The step that ended it, if one ran.
        var step: SyncEvent.Step?
        /// The attempts counted (earlier runs included) by the step that ended it.
        var attempts: Int
        /// What the last step achieved, when the chain succeeded.
        var pushed: PushResult?
        /// Why this process stopped the chain, if it did (`recipes cancel`, Ctrl-C, credentials, lease lost).
        var stop: StopReason?
    }

    /// Decides how `ending` concludes at `now`; `retryCap` is the retry policy's longest `Retry-After`.
    static func decide(_ ending: Ending, now: Date, retryCap: Duration) -> ChainConclusion {
        let claim = ending.claim
        func event(_ kind: SyncEvent.Kind, attempt: Int? = nil, delay: Double? = nil, error: String? = nil) -> SyncEvent {
            SyncEvent(
                kind, id: claim.recipe.id, uuid: claim.recipe.uuid, title: claim.recipe.title, step: ending.step,
                revision: claim.revision, attempt: attempt, delay: delay, error: error, time: now)
        }
        switch ending.outcome {
        case .succeeded:
            let result: ChainResult
            switch ending.pushed {
            case .uploaded(let revision, let version, let base)?: result = .uploaded(revision: revision, version: version, base: base)
            case .deleted?, nil: result = .deleted
            }
            return ChainConclusion(result: result, events: [event(.done)], tally: SyncSummary(), stopsRun: nil)
        case .failed(let error):
            let failure = error as? StepFailure
            let message = failure?.message ?? describe(error)
            switch failure?.kind {
            case .credentials:
                // Nothing failed: the recipe stays due, and says why it was not uploaded.
                return ChainConclusion(
                    result: .interrupted(error: message), events: [event(.skipped, error: message)],
                    tally: SyncSummary(waiting: 1, credentialsRefused: true), stopsRun: .credentials)
            case .conflict:
                // Merged with the server's copy, which left conflicts: recorded by the merge, waiting for a person.
                return ChainConclusion(
                    result: .interrupted(error: nil), events: [event(.conflict, error: message)],
                    tally: SyncSummary(conflicts: 1), stopsRun: nil)
            case .later:
                return ChainConclusion(
                    result: .interrupted(error: message), events: [event(.skipped, error: message)],
                    tally: SyncSummary(waiting: 1), stopsRun: nil)
            case .leaseLost:
                return ChainConclusion(
                    result: .interrupted(error: nil), events: [event(.cancelled, error: message)],
                    tally: SyncSummary(cancelled: 1), stopsRun: nil)
            case .transient:
                let text = "gave up after \(ending.attempts) attempts: \(message)"
                return ChainConclusion(
                    result: .failed(attempts: ending.attempts, error: text),
                    events: [event(.failed, attempt: ending.attempts, error: text)], tally: SyncSummary(failed: 1),
                    stopsRun: nil)
            case .permanent, nil:
                return ChainConclusion(
                    result: .failed(attempts: ending.attempts, error: message),
                    events: [event(.failed, attempt: ending.attempts, error: message)], tally: SyncSummary(failed: 1),
                    stopsRun: nil)
            }
        case .cancelled(let reason):
            switch ending.stop {
            case .credentials:
                // Not cancelled by anyone: not sent, and still due once the credentials are right.
                return ChainConclusion(
                    result: .interrupted(error: nil),
                    events: [event(.skipped, error: "not sent: the server refused the credentials")],
                    tally: SyncSummary(waiting: 1), stopsRun: nil)
            case .user:
                return ChainConclusion(
                    result: .cancelledByUser, events: [event(.cancelled, error: ChainRegistry.words(.user))],
                    tally: SyncSummary(cancelled: 1), stopsRun: nil)
            case let stop:
                return ChainConclusion(
                    result: .interrupted(error: nil),
                    events: [event(.cancelled, error: stop.map(ChainRegistry.words) ?? reason.description)],
                    tally: SyncSummary(cancelled: 1), stopsRun: nil)
            }
        case .deferred(let deferral):
            guard let retryAfter = deferral.retryAfter else {
                return ChainConclusion(
                    result: .offline(since: now), events: [event(.offline, error: describe(deferral.error))],
                    tally: SyncSummary(waiting: 1), stopsRun: nil)
            }
            let delay = retryAfter / .seconds(1)
            let message = describeWait(deferral.error, cap: retryCap)
            // A `retry` for the attempt to come, then `skipped`: the chain ends here, the wait is left to a later run.
            return ChainConclusion(
                result: .retryLater(at: now.addingTimeInterval(delay), attempts: deferral.attempts, error: message),
                events: [
                    event(.retry, attempt: deferral.attempts + 1, delay: delay, error: message),
                    event(.skipped, delay: delay,
                          error: "next attempt in \(Int(delay.rounded())) s, later than --max-wait; left for a later run"),
                ],
                tally: SyncSummary(waiting: 1), stopsRun: nil)
        }
    }

    /// `error` in words, saying so when the server asked for a longer wait than the retry policy grants (one
    /// `Retry-After` must not park a recipe for years: see `RetryPolicy.maxRetryAfter`).
    static func describeWait(_ error: any Error, cap: Duration) -> String {
        let message = describe(error)
        guard let failure = error as? StepFailure, case .transient(let asked?) = failure.kind, asked > cap
        else { return message }
        return message + "; the server asked to wait \(asked.components.seconds) s, recipes waits \(Int(cap / .seconds(3600))) h at most"
    }

    /// An error in words: a step's message, the engine's description, or a localized description.
    static func describe(_ error: any Error) -> String {
        if let failure = error as? StepFailure { return failure.message }
        if let engine = error as? EngineError { return engine.description }
        return (error as? any LocalizedError)?.errorDescription ?? "\(error)"
    }
}

extension SyncSummary {
    /// Adds `other`'s counts to these (and its refused credentials).
    mutating func add(_ other: SyncSummary) {
        done += other.done
        failed += other.failed
        cancelled += other.cancelled
        waiting += other.waiting
        credentialsRefused = credentialsRefused || other.credentialsRefused
        pulled += other.pulled
        merged += other.merged
        conflicts += other.conflicts
        removed += other.removed
        pullStopped = pullStopped ?? other.pullStopped
    }
}
