/// A procedure whose work produces an `Output`: the typed face of `AnyProcedure`.
///
/// ```swift
/// let image = Procedure<URL>(name: "image", conditions: [MutualExclusion("recipe:\(uuid)")]) { context in
///     try await transport.uploadImage(file)              // cancelled with the procedure
/// }
/// let json = Procedure<Int>(name: "recipe", input: image,   // runs after `image`, receives its URL
///                           conditions: [MutualExclusion("recipe:\(uuid)")]) { url, context in
///     try await transport.putRecipe(recipe, imageURL: url)
/// }
/// queue.add(image); queue.add(json)
/// ```
public final class Procedure<Output: Sendable>: Sendable {
    /// The type-erased procedure that queues, observers and conditions work with.
    public let erased: AnyProcedure

    /// Creates a procedure.
    ///
    /// - Parameters:
    ///   - name: for messages and events.
    ///   - priority: among ready procedures.
    ///   - conditions: what must hold before it runs (mutual exclusion, reachability, your own).
    ///   - retry: how failures are retried; `.none` tries once.
    ///   - tags: labels carried into events.
    ///   - previousAttempts: attempts made by earlier runs, counted against `retry.maxAttempts`.
    ///   - cancelsOnDependencyFailure: adds `NoFailedDependencies` (the default).
    ///   - body: the work, run in a task that cancellation cancels; called once per attempt.
    public init(
        name: String,
        priority: ProcedurePriority = .normal,
        conditions: [any ProcedureCondition] = [],
        retry: RetryPolicy = .none,
        tags: [String: String] = [:],
        previousAttempts: Int = 0,
        cancelsOnDependencyFailure: Bool = true,
        body: @escaping @Sendable (ProcedureContext) async throws -> Output
    ) {
        erased = AnyProcedure(
            name: name, priority: priority, conditions: conditions, retryPolicy: retry, tags: tags,
            previousAttempts: previousAttempts, cancelsOnDependencyFailure: cancelsOnDependencyFailure,
            body: { context in try await body(context) }
        )
    }

    /// Creates a procedure that depends on `input` and receives its output when it runs (typed result passing).
    public convenience init<Input: Sendable>(
        name: String,
        input: Procedure<Input>,
        priority: ProcedurePriority = .normal,
        conditions: [any ProcedureCondition] = [],
        retry: RetryPolicy = .none,
        tags: [String: String] = [:],
        previousAttempts: Int = 0,
        body: @escaping @Sendable (Input, ProcedureContext) async throws -> Output
    ) {
        self.init(
            name: name, priority: priority, conditions: conditions, retry: retry, tags: tags,
            previousAttempts: previousAttempts, cancelsOnDependencyFailure: true
        ) { context in
            try await body(try context.output(of: input), context)
        }
        addDependency(input)
    }

    /// The unique identifier.
    public var id: ProcedureID { erased.id }
    /// The name.
    public var name: String { erased.name }
    /// The outcome, once finished.
    public var outcome: ProcedureOutcome? { erased.outcome }
    /// The output, once it succeeded.
    public var output: Output? { erased.anyOutput as? Output }
    /// The current life-cycle state.
    public var lifecycle: ProcedureState { erased.lifecycle }

    /// Makes this procedure wait for `dependency`.
    public func addDependency<T>(_ dependency: Procedure<T>) { erased.addDependency(dependency.erased) }
    /// Makes this procedure wait for `dependency`.
    public func addDependency(_ dependency: AnyProcedure) { erased.addDependency(dependency) }
    /// Adds a condition.
    public func addCondition(_ condition: any ProcedureCondition) { erased.addCondition(condition) }
    /// Adds an observer.
    public func addObserver(_ observer: any ProcedureObserver) { erased.addObserver(observer) }
    /// Cancels the procedure.
    public func cancel(reason: CancellationReason = .requested("cancel")) { erased.cancel(reason: reason) }
    /// Waits until it has finished and returns the outcome.
    public func waitUntilFinished() async -> ProcedureOutcome { await erased.waitUntilFinished() }

    /// Waits until it has finished and returns its output, or throws why there is none.
    public func value() async throws -> Output {
        switch await erased.waitUntilFinished() {
        case .succeeded:
            guard let output else { throw EngineError.missingInput(procedure: name, dependency: name) }
            return output
        case .failed(let error):
            throw error
        case .cancelled(let reason):
            throw EngineError.cancelled(procedure: name, reason: reason)
        case .deferred(let deferral):
            throw EngineError.deferred(procedure: name, deferral: deferral)
        }
    }
}
