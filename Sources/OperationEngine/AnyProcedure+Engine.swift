/// The engine's side of a procedure: checked transitions and the hand-offs between queue and driver task.
extension AnyProcedure {
    /// The exclusivity keys of a procedure being added: usually one (no array to build), else a list without
    /// duplicates.
    enum ExclusionKeys {
        case one(String)
        case list([String])
    }

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

    /// `attach` for a procedure the queue can register in a batch (`Attachment.isSimple`) and need not ask for
    /// contributed dependencies — no dependency, no dependent, no observer, not cancelled, and only the engine's own
    /// conditions, which contribute none — under one acquisition of the lock; `nil` (and nothing changes) otherwise.
    func attachIfSimple(to queue: ProcedureQueue) -> (keys: ExclusionKeys, plan: Plan)? {
        /// What the critical section found: not simple, the keys of a lone `MutualExclusion` (the common case,
        /// whose plan is known: nothing to evaluate, no dependency to check), or the conditions to look at.
        enum Found {
            case notSimple
            case key(String)
            case exclusion([String])
            case conditions([any ProcedureCondition])
        }
        let found = state.withLock { state -> Found in
            precondition(state.lifecycle == .initialized, "‘\(name)’ was already added to a queue.")
            guard state.dependencies.isEmpty, !state.hasDependents, state.observers.isEmpty, state.cancelReason == nil
            else { return .notSimple }
            if let key = state.exclusionKey, state.otherConditions.isEmpty {
                state.lifecycle = .pending
                state.queue = Unmanaged.passUnretained(queue)
                state.remainingDependencies = 1
                return .key(key)
            }
            // In place (through the buffer): the conditions are looked at without being copied out one by one.
            let kind = state.otherConditions.withUnsafeBufferPointer(Self.engineConditionsKind)
            guard kind != .other else { return .notSimple }
            state.lifecycle = .pending
            state.queue = Unmanaged.passUnretained(queue)
            state.remainingDependencies = 1
            if kind == .loneExclusion, state.exclusionKey == nil {
                // `MutualExclusion.exclusivityKeys` returns its stored keys: the engine's own code, which neither
                // blocks nor calls out, so it may run under the lock (`ProcedureLocks`' rule).
                return .exclusion(state.otherConditions.withUnsafeBufferPointer { $0[0].exclusivityKeys })
            }
            return .conditions(state.conditions)
        }
        // No dependency: nothing to check; a `MutualExclusion` needs no evaluation.
        let plan = Plan(asynchronousConditions: [], checksDependencies: false)
        switch found {
        case .notSimple:
            return nil
        case .key(let key):
            return (.one(key), plan)
        case .exclusion(let keys):
            if keys.count == 1 { return (.one(keys[0]), plan) }
            var seen = Set<String>()
            return (.list(keys.filter { seen.insert($0).inserted }), plan)
        case .conditions(let conditions):
            let (keys, plan) = keysAndPlan(conditions, hasDependencies: false)
            return (.list(keys), plan)
        }
    }

    /// What a procedure's conditions are, for `attachIfSimple`.
    private enum EngineConditionsKind { case loneExclusion, engineOnly, other }

    /// Whether `conditions` are exactly one `MutualExclusion`, only the engine's own conditions (none of which
    /// contributes a dependency), or anything else — by metatype comparison, with no call into a condition.
    private static func engineConditionsKind(_ conditions: UnsafeBufferPointer<any ProcedureCondition>) -> EngineConditionsKind {
        if conditions.count == 1, type(of: conditions[0]) == MutualExclusion.self { return .loneExclusion }
        for index in conditions.indices {
            let type = type(of: conditions[index])
            guard type == MutualExclusion.self || type == NoFailedDependencies.self || type == ReachabilityCondition.self
            else { return .other }
        }
        return .engineOnly
    }

    /// Moves `initialized → pending` and records the queue; returns what the queue needs.
    func attach(to queue: ProcedureQueue) -> Attachment {
        let (conditions, dependencies, hasDependents, observers, cancelledEarly) = state.withLock { state in
            precondition(state.lifecycle == .initialized, "‘\(name)’ was already added to a queue.")
            state.lifecycle = .pending
            state.queue = Unmanaged.passUnretained(queue)
            state.remainingDependencies = Int32(state.dependencies.count + 1)
            return (state.conditions, state.dependencies, state.hasDependents, state.observers, state.cancelReason)
        }
        return attachment(
            conditions: conditions, dependencies: dependencies, hasDependents: hasDependents, observers: observers,
            cancelledEarly: cancelledEarly)
    }

    /// What the queue needs, from what `attach` read.
    private func attachment(
        conditions: [any ProcedureCondition], dependencies: [AnyProcedure], hasDependents: Bool,
        observers: [any ProcedureObserver], cancelledEarly: CancellationReason?
    ) -> Attachment {
        let (keys, plan) = keysAndPlan(conditions, hasDependencies: !dependencies.isEmpty)
        return Attachment(
            dependencies: dependencies, keys: keys, hasDependents: hasDependents, observers: observers, plan: plan,
            cancelledEarly: cancelledEarly)
    }

    /// The exclusivity keys (without duplicates, in order) and the plan of `conditions`. They are fixed once
    /// attached (`addCondition` requires `initialized`); asking them outside the lock keeps their code out of the
    /// critical section.
    private func keysAndPlan(
        _ conditions: [any ProcedureCondition], hasDependencies: Bool
    ) -> (keys: [String], plan: Plan) {
        var keys: [String] = []
        var asynchronous: [any ProcedureCondition] = []
        var checksDependencies = checksDependencyOutcomes
        for index in conditions.indices {   // by index: the conditions are asked in place, not copied out
            // A metatype comparison: much cheaper than a dynamic cast on the hot path.
            if type(of: conditions[index]) == NoFailedDependencies.self {
                checksDependencies = true
                continue
            }
            let own = conditions[index].exclusivityKeys
            if keys.isEmpty { keys = own } else { keys += own }   // shares the condition's array when alone
            if conditions[index].requiresEvaluation { asynchronous.append(conditions[index]) }
        }
        if keys.count > 1 {
            var seen = Set<String>()
            keys = keys.filter { seen.insert($0).inserted }
        }
        return (keys, Plan(asynchronousConditions: asynchronous, checksDependencies: checksDependencies && hasDependencies))
    }

    /// The queue this procedure was added to, until it finishes.
    var attachedQueue: ProcedureQueue? { state.withLock { $0.queue?.takeUnretainedValue() } }

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
            state.remainingDependencies -= Int32(1 + finished)
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
        var stale: [@Sendable () -> Void] = []   // released after the lock
        return state.withLock { state in
            guard state.lifecycle != .finished, state.cancelReason == nil, !state.hasDriver else { return nil }
            state.hasDriver = true
            state.driver = driver
            return begin(&state, stale: &stale)
        }
    }

    /// Moves `ready → executing` unless cancelled, counting an attempt.
    func beginExecuting() -> Beginning {
        var stale: [@Sendable () -> Void] = []   // released after the lock
        return state.withLock { begin(&$0, stale: &stale) }
    }

    /// The transition to `executing`; the previous attempt's cancel handlers are moved to `stale`, for the caller to
    /// release after the lock.
    private func begin(_ state: inout CoreState, stale: inout [@Sendable () -> Void]) -> Beginning {
        if state.lifecycle == .finished { return .alreadyFinished }
        if let reason = state.cancelReason { return .cancelled(reason) }
        guard state.lifecycle.canTransition(to: .executing), state.hasBody else {
            return .cancelled(.requested("engine: \(name) was not ready"))
        }
        state.lifecycle = .executing
        state.attemptsThisRun += 1
        if !state.cancelHandlers.isEmpty { swap(&stale, &state.cancelHandlers) }
        let first = !state.started
        state.started = true
        return .go(
            attempt: previousAttempts + Int(state.attemptsThisRun), firstStart: first,
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
        // Moved out of the state under the lock and released after it (releasing may run anyone's code): the lists
        // as a whole (`extras`, usually none), and the driver.
        var extras: Extras?
        var driver: DriverHandle?
        // Any box allocated before the lock; `()` needs none.
        let output = producesVoid ? (output == nil ? StoredOutput.none : .void) : StoredOutput(boxing: output)
        let finished = state.withLock { state -> Bool in
            guard state.lifecycle != .finished else { return false }
            state.lifecycle = .finished
            state.outcome = outcome
            state.output = output
            swap(&extras, &state.extras)
            swap(&driver, &state.driver)
            state.queue = nil
            state.hasBody = false
            return true
        }
        guard finished else { return nil }
        dropBody()
        // Out of the state: only this thread reaches `extras` now.
        guard let extras else { return Finishing(observers: [], dependents: [], waiters: []) }
        return Finishing(observers: extras.observers, dependents: extras.dependents, waiters: extras.finishWaiters)
    }
}
