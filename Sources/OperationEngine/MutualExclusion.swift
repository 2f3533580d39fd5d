/// Mutual exclusion by string keys: at most one procedure holding a key runs at a time, served first-come.
///
/// Use one key per resource, such as `document:<id>`. A procedure may hold several keys (from one or several
/// conditions); it takes its place in every key's line atomically when it is added, so lines never cross and
/// several keys never deadlock. Keys are held from the moment the procedure is first in all its lines until it
/// finishes (including retry backoffs), and released on every exit path.
public struct MutualExclusion: ProcedureCondition {
    /// The keys.
    public let keys: [String]

    /// Creates the condition for one or more keys.
    public init(_ keys: String...) { self.keys = keys }

    /// Creates the condition for a list of keys.
    public init(keys: [String]) { self.keys = keys }

    /// `MutualExclusion(<keys>)`.
    public var name: String { "MutualExclusion(\(keys.joined(separator: ",")))" }
    /// The keys.
    public var exclusivityKeys: [String] { keys }
    /// Nothing to evaluate: exclusivity is enforced by the queue's lines.
    public var requiresEvaluation: Bool { false }
    /// Always holds once the keys are granted.
    public func evaluate(_ context: ConditionContext) async throws {}
}
