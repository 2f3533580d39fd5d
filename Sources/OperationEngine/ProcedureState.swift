/// The life-cycle stage of a procedure, with the only transitions the engine allows between stages.
///
/// ```
/// initialized ─add─▶ pending ─▶ evaluatingConditions ─▶ ready ─▶ executing ─▶ finished
///                       │               │   ▲             │          │
///                       │               ▼   │             │          ▼
///                       │          waitingToRetry ◀───────┼──── (retry / network wait)
///                       └───────────────┴──────────────────┴──────────▶ finished (cancel, failure)
/// ```
public enum ProcedureState: Int, Sendable, Hashable, CustomStringConvertible {
    /// Created and configurable; not yet added to a queue.
    case initialized
    /// Added to a queue; waiting for its dependencies and for its exclusivity keys.
    case pending
    /// Its asynchronous conditions are being evaluated.
    case evaluatingConditions
    /// Every condition holds; waiting for a concurrency slot.
    case ready
    /// Its work is running.
    case executing
    /// Waiting out a retry backoff or for the network; it keeps its exclusivity keys but no slot.
    case waitingToRetry
    /// Done, exactly once: succeeded, failed, deferred or cancelled.
    case finished

    /// Whether the engine may move a procedure from this state to `next`.
    public func canTransition(to next: ProcedureState) -> Bool {
        switch (self, next) {
        case (.initialized, .pending),
            (.pending, .evaluatingConditions), (.pending, .finished),
            (.evaluatingConditions, .ready), (.evaluatingConditions, .waitingToRetry),
            (.evaluatingConditions, .finished),
            (.ready, .executing), (.ready, .finished),
            (.executing, .waitingToRetry), (.executing, .finished),
            (.waitingToRetry, .evaluatingConditions), (.waitingToRetry, .finished):
            return true
        default:
            return false
        }
    }

    /// The state's name as written in logs and documentation.
    public var description: String {
        switch self {
        case .initialized: "initialized"
        case .pending: "pending"
        case .evaluatingConditions: "evaluatingConditions"
        case .ready: "ready"
        case .executing: "executing"
        case .waitingToRetry: "waitingToRetry"
        case .finished: "finished"
        }
    }
}
