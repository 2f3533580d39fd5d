/// A procedure whose work produces an `Output`: the typed face of `AnyProcedure`.
///
/// ```swift
/// let queue = ProcedureQueue(maxConcurrentProcedures: 4)
/// let fetch = Procedure<[UInt8]>(name: "fetch", retry: .standard) { context in
///     try await source.read()                              // cancelled with the procedure
/// }
/// let store = Procedure<Int>(name: "store", input: fetch,  // runs after `fetch`, receives its bytes
///                            conditions: [MutualExclusion("file:notes")]) { bytes, context in
///     try archive.write(bytes)
/// }
/// queue.add([fetch.erased, store.erased])
/// let written = try await store.value()
/// ```
public class Procedure<Output: Sendable>: AnyProcedure, @unchecked Sendable {
    // @unchecked Sendable (restated from `AnyProcedure`): the one property added here, `body`, is an immutable
    // Sendable closure.

    /// The work; it runs on the caller's executor (the driver task), so calling it needs no executor switch.
    public typealias AsyncBody = nonisolated(nonsending) @Sendable (ProcedureContext) async throws -> Output

    /// The work; `nil` for a group, which runs its children instead.
    private let body: AsyncBody?

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
        self.body = body
        super.init(
            name: name, priority: priority, conditions: conditions, retryPolicy: retry, tags: tags,
            previousAttempts: previousAttempts, cancelsOnDependencyFailure: cancelsOnDependencyFailure, isGroup: false)
    }

    /// Creates a group: a procedure with no body of its own, which runs `children` (see `GroupProcedure`).
    init(
        groupNamed name: String, priority: ProcedurePriority, conditions: [any ProcedureCondition],
        tags: [String: String], cancelsOnDependencyFailure: Bool, children: [AnyProcedure]
    ) {
        self.body = nil
        super.init(
            name: name, priority: priority, conditions: conditions, retryPolicy: .none, tags: tags,
            previousAttempts: 0, cancelsOnDependencyFailure: cancelsOnDependencyFailure, isGroup: true,
            children: children)
    }

    /// Creates a procedure that depends on `input` and receives its output when it runs (typed result passing).
    ///
    /// With `continuesAttempts`, it also continues `input`'s attempt count (`continueAttemptCount(of:)`), so that
    /// `retry.maxAttempts` bounds the failed attempts of both together.
    public convenience init<Input: Sendable>(
        name: String,
        input: Procedure<Input>,
        priority: ProcedurePriority = .normal,
        conditions: [any ProcedureCondition] = [],
        retry: RetryPolicy = .none,
        tags: [String: String] = [:],
        previousAttempts: Int = 0,
        continuesAttempts: Bool = false,
        body: @escaping @Sendable (Input, ProcedureContext) async throws -> Output
    ) {
        self.init(
            name: name, priority: priority, conditions: conditions, retry: retry, tags: tags,
            previousAttempts: previousAttempts, cancelsOnDependencyFailure: true
        ) { context in
            try await body(try context.output(of: input), context)
        }
        if continuesAttempts { continueAttemptCount(of: input) } else { addDependency(input) }
    }

    override nonisolated(nonsending) func invoke(_ context: ProcedureContext) async throws -> any Sendable {
        guard let body else { preconditionFailure("‘\(name)’ is a group: the queue starts its children") }
        return try await body(context)
    }

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
