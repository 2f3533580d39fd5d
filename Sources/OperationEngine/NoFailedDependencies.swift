/// Cancels a procedure whose dependency failed, was deferred or was cancelled, carrying the reason.
///
/// Every procedure carries this condition unless it was created with `cancelsOnDependencyFailure: false`.
/// It is checked synchronously the moment the last dependency finishes, so a failure cascades down a chain at once.
public struct NoFailedDependencies: ProcedureCondition {
    /// Creates the condition.
    public init() {}

    /// Checked synchronously by the queue, not in the asynchronous step.
    public var requiresEvaluation: Bool { false }

    /// Throws the cancellation reason when a dependency did not succeed (the queue calls `check` directly).
    public func evaluate(_ context: ConditionContext) async throws {
        if let reason = Self.check(context.procedure.dependencies) {
            throw EngineError.cancelled(procedure: context.procedure.name, reason: reason)
        }
    }

    /// The reason to cancel, given the dependencies, or `nil` when every one succeeded.
    static func check(_ dependencies: [AnyProcedure]) -> CancellationReason? {
        for dependency in dependencies {
            switch dependency.outcome {
            case .succeeded?, nil:
                continue
            case .failed(let error)?:
                return .dependencyFailed(dependency: dependency.name, error: error)
            case .deferred(let deferral)?:
                return .dependencyFailed(dependency: dependency.name, error: deferral.error)
            case .cancelled?:
                return .dependencyCancelled(dependency: dependency.name)
            }
        }
        return nil
    }
}
