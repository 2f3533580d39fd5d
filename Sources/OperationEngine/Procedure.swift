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
public final class Procedure<Output: Sendable>: AnyProcedure, @unchecked Sendable {
    /// An asynchronous body; it runs on the caller's executor (the driver task), so calling it needs no executor switch.
    public typealias AsyncBody = nonisolated(nonsending) @Sendable (ProcedureContext) async throws -> Output

    // @unchecked Sendable (restated from `AnyProcedure`): the one property added here, `work`, is guarded as its
    // comment says; everything else is `AnyProcedure`'s.
    /// The work, typed; `nil` once the procedure has finished (so that nothing it captured is kept alive).
    private enum Work {
        case asynchronous(AsyncBody)
        case synchronous(@Sendable (ProcedureContext) throws -> Output)
    }

    // nonisolated(unsafe): written at creation (before the procedure is added to a queue, which publishes it through
    // the queue's and the procedure's locks) and set to `nil` by `dropBody`, once, by the thread whose `markFinished`
    // finished the procedure, right after that call (which took the lock). It is read only by the procedure's driver
    // while the procedure is `executing`; a procedure with a driver is finished by that driver alone (see
    // `AnyProcedure.cancel`), so no read races with the one later write.
    private nonisolated(unsafe) var work: Work?

    /// The type-erased procedure that queues, observers and conditions work with: this very object.
    public var erased: AnyProcedure { self }

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
        body: @escaping AsyncBody
    ) {
        work = .asynchronous(body)
        super.init(
            name: name, priority: priority, conditions: conditions, retryPolicy: retry, tags: tags,
            previousAttempts: previousAttempts, cancelsOnDependencyFailure: cancelsOnDependencyFailure,
            runsSynchronously: false, producesVoid: Output.self == Void.self)
    }

    private init(
        name: String, priority: ProcedurePriority, conditions: [any ProcedureCondition], retry: RetryPolicy,
        tags: [String: String], previousAttempts: Int, cancelsOnDependencyFailure: Bool,
        synchronousBody: @escaping @Sendable (ProcedureContext) throws -> Output
    ) {
        work = .synchronous(synchronousBody)
        super.init(
            name: name, priority: priority, conditions: conditions, retryPolicy: retry, tags: tags,
            previousAttempts: previousAttempts, cancelsOnDependencyFailure: cancelsOnDependencyFailure,
            runsSynchronously: true, producesVoid: Output.self == Void.self)
    }

    /// Creates a procedure whose body does not suspend: the driver calls it inline, without an asynchronous call,
    /// which makes very short work (bookkeeping, in-memory transformations) several times cheaper to schedule.
    ///
    /// The body still runs in the driver task, so `Task.isCancelled` and `context.onCancel` work; but it cannot
    /// `await`, so it must not block for long (it holds a concurrency slot and its driver thread meanwhile). Use the
    /// ordinary initializer for I/O. Everything else — conditions, exclusivity, retries, observers — is the same.
    public static func synchronous(
        name: String,
        priority: ProcedurePriority = .normal,
        conditions: [any ProcedureCondition] = [],
        retry: RetryPolicy = .none,
        tags: [String: String] = [:],
        previousAttempts: Int = 0,
        cancelsOnDependencyFailure: Bool = true,
        body: @escaping @Sendable (ProcedureContext) throws -> Output
    ) -> Procedure<Output> {
        Procedure(
            name: name, priority: priority, conditions: conditions, retry: retry, tags: tags,
            previousAttempts: previousAttempts, cancelsOnDependencyFailure: cancelsOnDependencyFailure,
            synchronousBody: body)
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

    override nonisolated(nonsending) func invoke(_ context: ProcedureContext) async throws -> any Sendable {
        switch work {
        case .asynchronous(let body): return try await body(context)
        case .synchronous(let body): return try body(context)
        case nil: throw CancellationError()   // unreachable: the driver only invokes an executing procedure
        }
    }

    override func invokeSynchronously(_ context: ProcedureContext) throws -> any Sendable {
        guard case .synchronous(let body) = work else { throw CancellationError() }   // unreachable, as above
        return try body(context)
    }

    override func dropBody() { work = nil }

    /// The output, once it succeeded.
    public var output: Output? { anyOutput as? Output }

    /// Waits until it has finished and returns its output, or throws why there is none.
    public func value() async throws -> Output {
        switch await waitUntilFinished() {
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
