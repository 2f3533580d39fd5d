import OperationEngine
import RecipeModels

extension PullStop {
    /// Why the pull stopped when fetching a page of the feed ended with `outcome` (not a success): the server
    /// unreachable when the page's reachability condition failed or the engine deferred it to wait for the network,
    /// interrupted when it was cancelled, else failed; in the words of its error.
    static func of(_ outcome: ProcedureOutcome) -> PullStop {
        let words = outcome.error.map(ChainConclusion.describe) ?? "interrupted"
        switch outcome {
        case .deferred(let deferral) where deferral.retryAfter == nil:
            return PullStop(.unreachable, words)
        case .cancelled:
            return PullStop(.interrupted, words)
        default:
            if let engine = outcome.error as? EngineError, engine.isUnreachable { return PullStop(.unreachable, words) }
            return PullStop(.failed, words)
        }
    }
}
