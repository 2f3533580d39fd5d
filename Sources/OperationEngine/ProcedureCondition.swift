/// Something that must hold before a procedure runs (the seeds' `OperationCondition`).
///
/// A condition can contribute exclusivity keys (mutual exclusion), contribute a dependency that the queue adds
/// first, and evaluate asynchronously: throwing finishes the procedure with that error without executing it, unless
/// the procedure's retry policy classifies the error as "not now" or transient and waits.
public protocol ProcedureCondition: Sendable {
    /// The condition's name, for messages.
    var name: String { get }
    /// Keys of mutual exclusion: at most one procedure per key runs at a time. Default: none.
    var exclusivityKeys: [String] { get }
    /// Whether `evaluate` does anything; `false` lets the engine skip the asynchronous step. The engine asks this
    /// (and `holdsWithoutEvaluation`) and never looks at a condition's type. Default: `true`.
    var requiresEvaluation: Bool { get }
    /// A procedure to run before the guarded one (for example a log-in); the queue adds it. Default: `nil`.
    func dependency(for procedure: AnyProcedure) -> AnyProcedure?
    /// Checks the condition just before the procedure becomes ready; throws when it does not hold.
    func evaluate(_ context: ConditionContext) async throws
    /// Whether the condition is known to hold right now without suspending (a remembered answer, say): when every
    /// condition that needs evaluation says so, the queue makes the procedure ready at once instead of starting a
    /// task to evaluate them. `false` means "evaluate" — never "does not hold". Default: `false`.
    func holdsWithoutEvaluation(_ context: ConditionContext) -> Bool
}

extension ProcedureCondition {
    /// No exclusivity keys.
    public var exclusivityKeys: [String] { [] }
    /// Evaluation is required.
    public var requiresEvaluation: Bool { true }
    /// No dependency.
    public func dependency(for procedure: AnyProcedure) -> AnyProcedure? { nil }
    /// Not known without evaluating.
    public func holdsWithoutEvaluation(_ context: ConditionContext) -> Bool { false }
    /// The type's name.
    public var name: String { String(describing: Self.self) }
}

/// What a condition sees when it is evaluated.
public struct ConditionContext: Sendable {
    /// The procedure the condition guards.
    public let procedure: AnyProcedure
    /// The attempt about to be made (1-based, counting earlier runs).
    public let attempt: Int

    /// Creates a context (the queue does this).
    public init(procedure: AnyProcedure, attempt: Int) {
        self.procedure = procedure
        self.attempt = attempt
    }
}
