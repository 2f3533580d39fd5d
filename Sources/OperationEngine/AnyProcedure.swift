import Locking

/// A unit of work with a life cycle, conditions, dependencies, observers and a retry policy, type-erased (the seeds'
/// `Operation`).
///
/// `Procedure<Output>` is the typed face most code creates, and `GroupProcedure` a procedure made of others; queues,
/// observers and conditions see `AnyProcedure`. Configure a procedure (dependencies, conditions, observers) before
/// adding it to a queue; after that only `cancel` changes it. Its mutable state sits behind its own lock, which the
/// engine never holds while calling out.
public class AnyProcedure: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: a non-final class cannot be checked by the compiler. Every stored property is a `let` of a
    // Sendable type, or `state`, whose value is only reached through its lock; the subclasses (`Procedure`,
    // `GroupProcedure`) add only `let`s of Sendable types.

    /// The unique identifier.
    public let id: ProcedureID
    /// The name, for messages and events (for example `image upload`).
    public let name: String
    /// The priority among ready procedures.
    public let priority: ProcedurePriority
    /// Free-form labels carried into events (for example `uuid`, `step`).
    public let tags: [String: String]
    /// How failures are retried.
    public let retryPolicy: RetryPolicy
    /// Whether the implicit `NoFailedDependencies` applies.
    let checksDependencyOutcomes: Bool
    /// Whether this is a group: started by adding its children to the queue, not by running a body.
    let isGroup: Bool
    /// Everything that changes, behind the procedure's own lock.
    let state: Locked<ProcedureCore>

    init(
        name: String, priority: ProcedurePriority, conditions: [any ProcedureCondition], retryPolicy: RetryPolicy,
        tags: [String: String], previousAttempts: Int, cancelsOnDependencyFailure: Bool, isGroup: Bool,
        children: [AnyProcedure] = []
    ) {
        self.id = ProcedureID.next()
        self.name = name
        self.priority = priority
        self.tags = tags
        self.retryPolicy = retryPolicy
        self.checksDependencyOutcomes = cancelsOnDependencyFailure
        self.isGroup = isGroup
        var core = ProcedureCore(previousAttempts: max(0, previousAttempts), conditions: conditions)
        if !children.isEmpty { core.relate().children = children }
        self.state = Locked(consume core)
    }

    /// Runs the body once; called only by the procedure's driver while it is `executing`.
    nonisolated(nonsending) func invoke(_ context: ProcedureContext) async throws -> any Sendable {
        preconditionFailure("AnyProcedure is abstract; create a Procedure")
    }

    /// A group's output, read once its children have all finished; `nil` for other procedures.
    func outputOfChildren() -> (any Sendable)? { nil }

    // MARK: Reading

    /// The current life-cycle state.
    public var lifecycle: ProcedureState { state.withLock { $0.lifecycle } }
    /// Whether cancellation was requested (it may still be finishing).
    public var isCancelled: Bool { state.withLock { $0.cancelReason != nil } }
    /// Why it was cancelled, if it was.
    public var cancellationReason: CancellationReason? { state.withLock { $0.cancelReason } }
    /// Whether it has finished.
    public var isFinished: Bool { state.withLock { $0.lifecycle == .finished } }
    /// The outcome, once finished.
    public var outcome: ProcedureOutcome? { state.withLock { $0.outcome } }
    /// The output of a successful run, type-erased.
    public var anyOutput: (any Sendable)? { state.withLock { $0.output } }
    /// Attempts made by earlier runs (or, with `continueAttemptCount(of:)`, by the procedure before it), counted
    /// against `retryPolicy.maxAttempts`.
    public var previousAttempts: Int { state.withLock { $0.previousAttempts } }
    /// The current (or last) attempt number, counting earlier ones; `previousAttempts` before the first attempt.
    public var attempt: Int { state.withLock { $0.previousAttempts + $0.attemptsThisRun } }
    /// The procedures this one waits for (empty once it has finished).
    public var dependencies: [AnyProcedure] { state.withLock { $0.dependencies } }
    /// The conditions, including the implicit `NoFailedDependencies` unless opted out (empty once it has finished).
    public var conditions: [any ProcedureCondition] {
        let explicit = state.withLock { $0.conditions }
        return checksDependencyOutcomes ? explicit + [NoFailedDependencies()] : explicit
    }
    /// The exclusivity keys of all conditions, without duplicates, in order (empty once it has finished).
    public var exclusivityKeys: [String] {
        var seen = Set<String>()
        return conditions.flatMap(\.exclusivityKeys).filter { seen.insert($0).inserted }
    }
    /// The identity carried by events.
    public var info: ProcedureInfo { ProcedureInfo(id: id, name: name, tags: tags) }
    /// `name#id`.
    public var description: String { "\(name)\(id)" }

    // MARK: Configuring (before the procedure is added to a queue)

    /// Makes this procedure wait until `dependency` has finished; call before adding either to a queue.
    public func addDependency(_ dependency: AnyProcedure) {
        precondition(dependency !== self, "A procedure cannot depend on itself.")
        state.withLock { state in
            precondition(state.lifecycle == .initialized, "Add dependencies before adding ‘\(name)’ to a queue.")
            if !state.dependencies.contains(where: { $0 === dependency }) { state.relate().dependencies.append(dependency) }
        }
        dependency.state.withLock { $0.hasDependents = true }
    }

    /// Makes this procedure continue the attempt count of `dependency` (which it then depends on): once `dependency`
    /// has succeeded, this procedure's `previousAttempts` becomes the attempts `dependency` counted less the one that
    /// succeeded, so that `retryPolicy.maxAttempts` bounds the failed attempts of the chain as a whole.
    public func continueAttemptCount(of dependency: AnyProcedure) {
        addDependency(dependency)
        state.withLock { $0.relate().attemptCountSource = dependency }
    }

    /// Adds a condition; call before adding the procedure to a queue.
    public func addCondition(_ condition: any ProcedureCondition) {
        state.withLock { state in
            precondition(state.lifecycle == .initialized, "Add conditions before adding ‘\(name)’ to a queue.")
            state.conditions.append(condition)
        }
    }

    /// Adds an observer; it receives every event from now on. Observers added after finishing receive nothing.
    public func addObserver(_ observer: any ProcedureObserver) {
        state.withLock { state in
            guard state.lifecycle != .finished else { return }
            state.relate().observers.append(observer)
        }
    }

    // MARK: Cancelling and waiting

    /// Cancels the procedure: before it starts it never executes; while it runs, its task is cancelled and its
    /// cancel handlers run at once; a running group cancels its children and finishes when they have. Only the first
    /// call has an effect; cancelling a finished procedure does nothing.
    public func cancel(reason: CancellationReason = .requested("cancel")) {
        /// What the critical section decided; acted on after it.
        enum Action {
            case none
            /// Not added to a queue yet: the mark is all (`add` finishes it as cancelled).
            case markOnly
            /// Running or evaluating conditions: its driver finishes it.
            case interrupt(DriverHandle, [@Sendable () -> Void])
            /// Waiting in its queue with no driver: finished here.
            case finish(ProcedureQueue)
            /// A running group: its children are cancelled, and it finishes when they have.
            case cancelChildren([AnyProcedure])
        }
        let (action, observers, queue) = state.withLock { state -> (Action, [any ProcedureObserver], ProcedureQueue?) in
            guard state.lifecycle != .finished, state.cancelReason == nil else { return (.none, [], nil) }
            state.cancelReason = reason
            if isGroup, state.started { return (.cancelChildren(state.children), state.observers, state.queue) }
            if let driver = state.driver {
                let handlers = state.relations?.cancelHandlers ?? []
                state.relations?.cancelHandlers = []
                return (.interrupt(driver, handlers), state.observers, state.queue)
            }
            if let queue = state.queue { return (.finish(queue), state.observers, queue) }
            return (.markOnly, state.observers, nil)
        }
        if case .none = action { return }
        let event = ProcedureEvent.cancelled(info, reason: reason)
        for observer in observers { observer.receive(event, from: self, child: nil) }
        queue?.broadcast(event)
        switch action {
        case .none, .markOnly:
            break
        case .interrupt(let driver, let handlers):
            driver.cancel(ifDriving: id)
            for handler in handlers { handler() }
        case .finish(let queue):
            queue.complete(self, outcome: .cancelled(reason), output: nil, holdsSlot: false)
        case .cancelChildren(let children):
            for child in children { child.cancel(reason: reason) }
        }
    }

    /// Waits until the procedure has finished and returns its outcome.
    public func waitUntilFinished() async -> ProcedureOutcome {
        await withCheckedContinuation { continuation in
            let done: ProcedureOutcome? = state.withLock { state in
                if let outcome = state.outcome { return outcome }
                state.relate().finishWaiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }
}

extension AnyProcedure: Hashable {
    /// Procedures are equal when they are the same procedure.
    public static func == (lhs: AnyProcedure, rhs: AnyProcedure) -> Bool { lhs === rhs }

    /// Hashes the identifier.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
