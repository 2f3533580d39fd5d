/// The engine's side of a procedure: checked transitions and the hand-offs between queue and driver task.
extension AnyProcedure {
    /// What a procedure looks like to the queue when it is added.
    struct Attachment {
        var dependencies: [AnyProcedure]
        var keys: [String]
        var hasDependents: Bool
        var observers: [any ProcedureObserver]
        var plan: Plan
        var cancelledEarly: CancellationReason?

        /// No dependency, no dependent, no observer, not cancelled: the queue can register it in a batch.
        var isSimple: Bool {
            dependencies.isEmpty && !hasDependents && observers.isEmpty && cancelledEarly == nil
        }
    }

    /// What the queue needs to know about a procedure's conditions, computed once when it is added.
    struct Plan {
        /// Conditions that need the asynchronous evaluation step.
        var asynchronousConditions: [any ProcedureCondition]
        /// Whether `NoFailedDependencies` applies and there are dependencies to check.
        var checksDependencies: Bool
    }

    /// What `beginExecuting` found.
    enum Beginning {
        case go(attempt: Int, firstStart: Bool, observers: [any ProcedureObserver])
        case cancelled(CancellationReason)
        case alreadyFinished
    }

    /// What `markFinished` hands back for delivery outside the lock.
    struct Finishing {
        var observers: [any ProcedureObserver]
        var dependents: [AnyProcedure]
        var waiters: [CheckedContinuation<ProcedureOutcome, Never>]
    }

    /// Moves `initialized → pending` and records the queue; returns what the queue needs.
    func attach(to queue: ProcedureQueue) -> Attachment {
        state.withLock { state -> Attachment in
            precondition(state.lifecycle == .initialized, "‘\(name)’ was already added to a queue.")
            state.lifecycle = .pending
            state.queue = queue
            state.remainingDependencies = state.dependencies.count + 1
            var keys: [String] = []
            var asynchronous: [any ProcedureCondition] = []
            var checksDependencies = checksDependencyOutcomes
            for condition in state.conditions {
                // A metatype comparison: much cheaper than a dynamic cast on the hot path.
                if type(of: condition) == NoFailedDependencies.self {
                    checksDependencies = true
                    continue
                }
                let own = condition.exclusivityKeys
                if keys.isEmpty { keys = own } else { keys += own }   // shares the condition's array when alone
                if condition.requiresEvaluation { asynchronous.append(condition) }
            }
            if keys.count > 1 {
                var seen = Set<String>()
                keys = keys.filter { seen.insert($0).inserted }
            }
            return Attachment(
                dependencies: state.dependencies, keys: keys, hasDependents: state.hasDependents,
                observers: state.observers,
                plan: Plan(
                    asynchronousConditions: asynchronous,
                    checksDependencies: checksDependencies && !state.dependencies.isEmpty),
                cancelledEarly: state.cancelReason)
        }
    }

    /// The queue this procedure was added to, until it finishes.
    var attachedQueue: ProcedureQueue? { state.withLock { $0.queue } }

    /// Registers `dependent` to be told when this procedure finishes; `false` if it already has.
    func registerDependent(_ dependent: AnyProcedure) -> Bool {
        state.withLock { state in
            guard state.lifecycle != .finished else { return false }
            state.dependents.append(dependent)
            return true
        }
    }

    /// Ends the registration of dependencies, `finished` of which were already done: whether none is left, and
    /// the cancellation reason if the procedure was cancelled before being added and is not finished yet.
    func settleDependencies(alreadyFinished finished: Int) -> (satisfied: Bool, cancelledEarly: CancellationReason?) {
        state.withLock { state in
            state.remainingDependencies -= 1 + finished
            let early = state.lifecycle == .finished || state.hasDriver ? nil : state.cancelReason
            return (state.remainingDependencies == 0, early)
        }
    }

    /// Moves `pending → evaluatingConditions → ready` in one step (no asynchronous condition to evaluate).
    func becomeReady() -> Bool {
        state.withLock { state in
            guard state.lifecycle == .pending, state.cancelReason == nil else { return false }
            state.lifecycle = .ready
            return true
        }
    }

    /// Counts one finished dependency; `true` when it was the last.
    func dependencyFinished() -> Bool {
        state.withLock { state in
            state.remainingDependencies -= 1
            return state.remainingDependencies == 0
        }
    }

    /// Performs a checked transition; `false` (and nothing changes) if it is not allowed from the current state.
    func transition(to next: ProcedureState) -> Bool {
        state.withLock { state in
            guard next != .finished, state.lifecycle.canTransition(to: next) else { return false }
            state.lifecycle = next
            return true
        }
    }

    /// Makes `driver` the procedure's only driver; `false` if it is cancelled or finished (the canceller finishes it).
    func claimDriver(_ driver: DriverHandle) -> Bool {
        state.withLock { state in
            guard state.lifecycle != .finished, state.cancelReason == nil, !state.hasDriver else { return false }
            state.hasDriver = true
            state.driver = driver
            return true
        }
    }

    /// `claimDriver` and `beginExecuting` under one acquisition of the lock, for a driver that already holds a slot;
    /// `nil` (and nothing changes) when `claimDriver` would refuse.
    func claimDriverAndBegin(_ driver: DriverHandle) -> Beginning? {
        state.withLock { state in
            guard state.lifecycle != .finished, state.cancelReason == nil, !state.hasDriver else { return nil }
            state.hasDriver = true
            state.driver = driver
            return begin(&state)
        }
    }

    /// Moves `ready → executing` unless cancelled, counting an attempt.
    func beginExecuting() -> Beginning {
        state.withLock { begin(&$0) }
    }

    private func begin(_ state: inout CoreState) -> Beginning {
        if state.lifecycle == .finished { return .alreadyFinished }
        if let reason = state.cancelReason { return .cancelled(reason) }
        guard state.lifecycle.canTransition(to: .executing), state.hasBody else {
            return .cancelled(.requested("engine: \(name) was not ready"))
        }
        state.lifecycle = .executing
        state.attemptsThisRun += 1
        if !state.cancelHandlers.isEmpty { state.cancelHandlers = [] }
        let first = !state.started
        state.started = true
        return .go(
            attempt: previousAttempts + state.attemptsThisRun, firstStart: first,
            observers: first ? state.observers : [])
    }

    /// Takes back an attempt that ended "not now" (it does not count).
    func uncountAttempt() {
        state.withLock { $0.attemptsThisRun = max(0, $0.attemptsThisRun - 1) }
    }

    /// Registers a handler run when cancellation is requested; runs it at once if it already was.
    func addCancelHandler(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.cancelReason != nil || state.lifecycle == .finished { return true }
            state.cancelHandlers.append(handler)
            return false
        }
        if runNow { handler() }
    }

    /// The observers at this moment.
    var currentObservers: [any ProcedureObserver] { state.withLock { $0.observers } }

    /// Finishes exactly once: records the outcome and drops everything that could keep other objects alive.
    /// Returns `nil` when the procedure had already finished.
    func markFinished(outcome: ProcedureOutcome, output: (any Sendable)?) -> Finishing? {
        state.withLock { state in
            guard state.lifecycle != .finished else { return nil }
            state.lifecycle = .finished
            state.outcome = outcome
            state.output = output
            let finishing = Finishing(observers: state.observers, dependents: state.dependents, waiters: state.finishWaiters)
            state.observers = []
            state.dependents = []
            state.dependencies = []
            state.finishWaiters = []
            state.cancelHandlers = []
            state.hasBody = false
            dropBody()
            state.driver = nil
            state.queue = nil
            return finishing
        }
    }
}
