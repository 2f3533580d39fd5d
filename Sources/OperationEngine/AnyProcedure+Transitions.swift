/// The engine's side of a procedure: its checked transitions, each one acquisition of its lock.
extension AnyProcedure {
    /// Reads what the procedure's conditions ask of the queue, first adding the dependencies they contribute (to the
    /// procedure and to `queue`); the procedure stays `initialized`.
    func prepare(for queue: ProcedureQueue) -> Preparation {
        let (conditions, ownDependencies, continues) = state.withLock { state in
            (state.conditions, state.dependencies, state.relations?.attemptCountSource != nil)
        }
        // Asked outside the lock: a condition is the caller's code.
        var dependencies = ownDependencies
        var keys: [String] = []
        var plan = Plan(continuesAttempts: continues, isGroup: isGroup)
        var checksDependencies = checksDependencyOutcomes
        for condition in conditions {
            if let dependency = condition.dependency(for: self), !dependencies.contains(where: { $0 === dependency }) {
                addDependency(dependency)
                dependencies.append(dependency)
                if dependency.lifecycle == .initialized { queue.add(dependency) }
            }
            if type(of: condition) == NoFailedDependencies.self { checksDependencies = true }
            let own = condition.exclusivityKeys
            if keys.isEmpty { keys = own } else { keys += own }   // a lone condition's keys are shared, not copied
            if condition.requiresEvaluation { plan.asynchronousConditions.append(condition) }
        }
        if keys.count > 1 {
            var seen = Set<String>()
            keys = keys.filter { seen.insert($0).inserted }
        }
        plan.checksDependencies = checksDependencies && !dependencies.isEmpty
        let waitsForUnadded = dependencies.contains { $0.lifecycle == .initialized }
        return Preparation(procedure: self, keys: keys, plan: plan, waitsForUnadded: waitsForUnadded)
    }

    /// Moves `initialized → pending`, records the queue, its keys and its plan (its finish must know which lines to
    /// leave, and with nothing to wait for it is ready as soon as it holds its keys), and returns what the queue needs
    /// to register it.
    func attach(_ preparation: Preparation, to queue: ProcedureQueue) -> Admission {
        state.withLock { state in
            precondition(state.lifecycle == .initialized, "‘\(name)’ was already added to a queue.")
            state.lifecycle = .pending
            state.queue = queue
            state.remainingDependencies = state.dependencies.count + 1
            state.keys = preparation.keys
            state.plan = preparation.plan
            let independent = state.dependencies.isEmpty && !state.hasDependents && state.cancelReason == nil
            state.dependenciesDone = independent
            return Admission(
                procedure: self, keys: preparation.keys, dependencies: state.dependencies,
                hasDependents: state.hasDependents, observers: state.observers, isIndependent: independent)
        }
    }

    /// The queue this procedure was added to, until it finishes.
    var attachedQueue: ProcedureQueue? { state.withLock { $0.queue } }

    /// The conditions with an asynchronous evaluation step.
    var asynchronousConditions: [any ProcedureCondition] { conditions.filter(\.requiresEvaluation) }

    /// Registers `dependent` to be told when this procedure finishes; `false` if it already has.
    func registerDependent(_ dependent: AnyProcedure) -> Bool {
        state.withLock { state in
            guard state.lifecycle != .finished else { return false }
            state.relate().dependents.append(dependent)
            return true
        }
    }

    /// Ends the registration with its dependencies, `finished` of which were already done: whether none is left,
    /// and the reason if it was cancelled before being added and is not finished yet.
    func settleDependencies(alreadyFinished finished: Int) -> (satisfied: Bool, cancelledEarly: CancellationReason?) {
        state.withLock { state in
            state.remainingDependencies -= 1 + finished
            let early = state.lifecycle == .finished || state.driver != nil ? nil : state.cancelReason
            return (state.remainingDependencies == 0, early)
        }
    }

    /// Counts one finished dependency; `true` when it was the last.
    func dependencyFinished() -> Bool {
        state.withLock { state in
            state.remainingDependencies -= 1
            return state.remainingDependencies == 0
        }
    }

    /// Takes over the attempt count of the dependency named by `continueAttemptCount(of:)`, once it has succeeded.
    func continueAttemptCount() {
        guard let source = state.withLock({ $0.relations?.attemptCountSource }) else { return }
        guard source.outcome?.isSuccess == true else { return }
        let counted = source.attempt - 1
        state.withLock { state in
            if !state.started { state.previousAttempts = max(state.previousAttempts, counted) }
        }
    }

    /// Records that the procedure heads all its lines (called under the queue's lock).
    func grantKeys() -> Readiness {
        state.withLock { state in
            state.keysGranted = true
            return Self.readiness(&state)
        }
    }

    /// Records that its dependencies are done.
    func finishDependencies() -> Readiness {
        state.withLock { state in
            state.dependenciesDone = true
            return Self.readiness(&state)
        }
    }

    /// Where the procedure stands: once both its keys and its dependencies are settled, `ready` at once (and moved
    /// there) when nothing else stands in the way. Both are recorded under this lock, so exactly one call finds them
    /// settled.
    private static func readiness(_ state: inout ProcedureCore) -> Readiness {
        guard state.keysGranted, state.dependenciesDone, state.lifecycle == .pending, state.cancelReason == nil else {
            return .waiting
        }
        guard state.plan.isImmediate else { return .open(state.plan) }
        state.lifecycle = .ready
        return .ready
    }

    /// Moves `pending → ready` (nothing to evaluate); `false` if it was cancelled meanwhile.
    func becomeReady() -> Bool {
        state.withLock { state in
            guard state.lifecycle == .pending, state.cancelReason == nil else { return false }
            state.lifecycle = .ready
            return true
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

    /// Makes `driver` the procedure's only driver; `false` if it is cancelled or finished (its canceller finishes it).
    func claimDriver(_ driver: DriverHandle) -> Bool {
        state.withLock { state in
            guard state.lifecycle != .finished, state.cancelReason == nil, state.driver == nil else { return false }
            state.driver = driver
            return true
        }
    }

    /// `claimDriver` and `beginExecuting` in one acquisition of the lock, for a driver moving on to the procedure
    /// with a slot; `nil` (and nothing changes) when `claimDriver` would refuse.
    func claimDriverAndBegin(_ driver: DriverHandle) -> Beginning? {
        var stale: [@Sendable () -> Void] = []
        return state.withLock { state in
            guard state.lifecycle != .finished, state.cancelReason == nil, state.driver == nil else { return nil }
            state.driver = driver
            return begin(&state, stale: &stale)
        }
    }

    /// Moves `ready → executing` unless cancelled, counting an attempt; the previous attempt's cancel handlers are
    /// dropped (after the lock).
    func beginExecuting() -> Beginning {
        var stale: [@Sendable () -> Void] = []
        return state.withLock { begin(&$0, stale: &stale) }
    }

    /// The transition to `executing`; the previous attempt's cancel handlers go to `stale`, released by the caller
    /// after the lock.
    private func begin(_ state: inout ProcedureCore, stale: inout [@Sendable () -> Void]) -> Beginning {
        if state.lifecycle == .finished { return .alreadyFinished }
        if let reason = state.cancelReason { return .cancelled(reason) }
        guard state.lifecycle.canTransition(to: .executing) else {
            return .cancelled(.requested("engine: \(name) was not ready"))
        }
        state.lifecycle = .executing
        state.attemptsThisRun += 1
        if let relations = state.relations { swap(&stale, &relations.cancelHandlers) }
        let first = !state.started
        state.started = true
        return .go(
            attempt: state.previousAttempts + state.attemptsThisRun, firstStart: first,
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
            state.relate().cancelHandlers.append(handler)
            return false
        }
        if runNow { handler() }
    }

    /// The observers at this moment.
    var currentObservers: [any ProcedureObserver] { state.withLock { $0.observers } }

    /// Finishes exactly once: records the outcome and takes out everything that could keep other objects alive —
    /// its relations, driver and queue, and its conditions, which the finishing thread frees rather than whoever
    /// frees the procedure. Returns `nil` when the procedure had already finished.
    func markFinished(outcome: ProcedureOutcome, output: (any Sendable)?) -> Finishing? {
        // Taken out under the lock and released after it, when this function returns: releasing may run anyone's code.
        var released = Released()
        return state.withLock { state -> Finishing? in
            guard state.lifecycle != .finished else { return nil }
            state.lifecycle = .finished
            state.outcome = outcome
            state.output = output
            swap(&released.driver, &state.driver)
            swap(&released.queue, &state.queue)
            swap(&released.conditions, &state.conditions)
            swap(&released.plan, &state.plan)
            var finishing = Finishing(keys: [], relations: nil)
            swap(&finishing.keys, &state.keys)
            swap(&finishing.relations, &state.relations)
            finishing.relations?.hasStarted = !isGroup || state.started
            return finishing
        }
    }
}

/// What `markFinished` takes out of a procedure's state, to be released after its lock.
private struct Released {
    var driver: DriverHandle?
    var queue: ProcedureQueue?
    var conditions: [any ProcedureCondition] = []
    var plan = Plan()
}
