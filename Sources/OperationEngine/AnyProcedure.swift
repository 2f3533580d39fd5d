
/// A unit of work with a life cycle, conditions, dependencies, observers and a retry policy, type-erased.
///
/// `Procedure<Output>` is the typed face most code uses; queues, observers and conditions see `AnyProcedure`.
/// Configure it (dependencies, conditions, observers) before adding it to a queue; after that only `cancel` changes
/// it. All state sits behind one lock (`ProcedureLocks`), and the engine never calls out while holding it.
///
/// Every procedure is a `Procedure<Output>` (the only subclass, final): the typed object and its erased face are
/// one object, and the body is stored typed in the subclass, so a procedure costs no wrapper object or closure.
public class AnyProcedure: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: a non-final class cannot be checked by the compiler. Its stored properties are `let`s of
    // Sendable types, `core` (guarded by the procedure's lock, see there), and `scheduling` (guarded by the queue's
    // lock, see there). The one subclass, `Procedure`, is final and module-internal to subclass (the class is
    // `public`, not `open`); its only mutable property, the body, is guarded as documented there.

    /// The unique identifier.
    public let id: ProcedureID
    /// The priority among ready procedures.
    public let priority: ProcedurePriority
    /// Whether the implicit `NoFailedDependencies` applies (kept as a flag rather than an element of `conditions`).
    let checksDependencyOutcomes: Bool
    /// Whether the body is synchronous (`Procedure.synchronous`): the driver then calls it inline, with no async call.
    let runsSynchronously: Bool
    /// Whether the output type is `Void` (stored without a box: `StoredOutput.void`).
    let producesVoid: Bool
    /// `previousAttempts`, in 4 bytes that would otherwise be padding.
    private let storedPreviousAttempts: Int32

    // The fields the scheduler touches on every procedure it moves — the priority, `scheduling`, then the start of
    // `core` — come first, so that they share the object's first cache lines. The one-byte fields sit together
    // and the larger ones are ordered to leave little padding: a `Procedure` is 225 bytes, a 240-byte heap block
    // (273 and 288 before), so fewer pages to fault in and fewer cache lines to fetch by the hundred thousand.

    /// The queue's bookkeeping for this procedure, stored here so that the scheduler needs no lookup by identifier.
    // nonisolated(unsafe): read and written only by `ProcedureQueue` while it holds its lock, and only by the one
    // queue the procedure was added to (`attach` admits a procedure to a single queue, once; the engine calls
    // `complete` only on the queue recorded by `attach`). @exclusivity(unchecked): that lock already serialises
    // every access, so the runtime's dynamic exclusivity bookkeeping on each access would only cost time.
    @exclusivity(unchecked) nonisolated(unsafe) var scheduling = ProcedureQueue.Scheduling()

    /// The mutable state; read and written only through `state.withLock`.
    // nonisolated(unsafe): only accessed inside `ProcedureStateLock.withLock`, which holds this procedure's mutex
    // (`ProcedureLocks.mutex(for: id)`) throughout. @exclusivity(unchecked): that mutex already serialises every
    // access, so the runtime's dynamic exclusivity bookkeeping would only cost time.
    @exclusivity(unchecked) nonisolated(unsafe) var core: CoreState

    /// The name, for messages and events (for example `image upload`).
    public let name: String
    /// Free-form labels carried into events (for example `uuid`, `step`).
    public let tags: [String: String]
    /// How failures are retried.
    public var retryPolicy: RetryPolicy { storedRetryPolicy.policy }
    /// The retry policy in 8 bytes instead of 112: `RetryPolicy.none` (the default) and `.standard` by name.
    private let storedRetryPolicy: StoredRetryPolicy
    /// Attempts already made by earlier runs; counted against `retryPolicy.maxAttempts`.
    public var previousAttempts: Int { Int(storedPreviousAttempts) }

    /// The state with its lock: `state.withLock { … }`.
    var state: ProcedureStateLock { ProcedureStateLock(procedure: Unmanaged.passUnretained(self)) }

    struct CoreState {
        // Ordered for size (no padding: the 17-byte reason, then the one-byte fields, then the 4-byte counters) and
        // locality (what every transition reads first).
        var cancelReason: CancellationReason?
        var lifecycle: ProcedureState = .initialized
        /// Whether the body is still held (dropped when the procedure finishes).
        var hasBody = true
        var hasDriver = false
        var started = false
        var hasDependents = false
        var attemptsThisRun: Int32 = 0
        var remainingDependencies: Int32 = 0
        var driver: DriverHandle?
        /// The queue it was added to, until it finishes.
        // Unmanaged (no reference counting, which would make every procedure touch the queue object's counter, one
        // line shared by every thread, twice): valid while set, because a queue keeps itself alive while it counts
        // unfinished procedures (see `ProcedureQueue.complete`), and this is set from `attach` — within
        // `ProcedureQueue.add`, whose caller holds the queue until the procedure is counted — until `markFinished`,
        // which precedes the uncounting.
        var queue: Unmanaged<ProcedureQueue>?
        /// The key of a procedure created with `MutualExclusion(key)` as its only condition — the common case —
        /// kept as the key itself: the caller's condition array and the condition's key array are then released
        /// at creation (two allocations per procedure fewer alive, and none to free when it goes). `conditions`
        /// rebuilds the condition when asked.
        var exclusionKey: String?
        /// The other conditions, in order, after the one `exclusionKey` stands for.
        var otherConditions: [any ProcedureCondition]
        /// The conditions as given (a lone `MutualExclusion(key)` rebuilt from `exclusionKey`).
        var conditions: [any ProcedureCondition] {
            get {
                guard let exclusionKey else { return otherConditions }
                return [MutualExclusion(exclusionKey)] + otherConditions
            }
            set {
                exclusionKey = nil
                otherConditions = newValue
            }
        }
        /// The lists most procedures never use, allocated with the first element of any of them (see `Extras`).
        var extras: Extras?
        var outcome: ProcedureOutcome?
        var output = StoredOutput.none

        /// What it waits for.
        var dependencies: [AnyProcedure] {
            get { extras?.dependencies ?? [] }
            set { if extras != nil || !newValue.isEmpty { ensureExtras().dependencies = newValue } }
            // In place (an append does not copy the list): allocates `extras` if there is none yet.
            _modify {
                let box = ensureExtras()
                yield &box.dependencies
            }
        }
        /// Who waits for it.
        var dependents: [AnyProcedure] {
            get { extras?.dependents ?? [] }
            set { if extras != nil || !newValue.isEmpty { ensureExtras().dependents = newValue } }
            // In place (an append does not copy the list): allocates `extras` if there is none yet.
            _modify {
                let box = ensureExtras()
                yield &box.dependents
            }
        }
        /// Who hears its events.
        var observers: [any ProcedureObserver] {
            get { extras?.observers ?? [] }
            set { if extras != nil || !newValue.isEmpty { ensureExtras().observers = newValue } }
            // In place (an append does not copy the list): allocates `extras` if there is none yet.
            _modify {
                let box = ensureExtras()
                yield &box.observers
            }
        }
        /// What runs when it is cancelled during this attempt.
        var cancelHandlers: [@Sendable () -> Void] {
            get { extras?.cancelHandlers ?? [] }
            set { if extras != nil || !newValue.isEmpty { ensureExtras().cancelHandlers = newValue } }
            // In place (an append does not copy the list): allocates `extras` if there is none yet.
            _modify {
                let box = ensureExtras()
                yield &box.cancelHandlers
            }
        }
        /// Who awaits its outcome.
        var finishWaiters: [CheckedContinuation<ProcedureOutcome, Never>] {
            get { extras?.finishWaiters ?? [] }
            set { if extras != nil || !newValue.isEmpty { ensureExtras().finishWaiters = newValue } }
            // In place (an append does not copy the list): allocates `extras` if there is none yet.
            _modify {
                let box = ensureExtras()
                yield &box.finishWaiters
            }
        }

        /// `conditions` stored: a lone `MutualExclusion` with one key as `exclusionKey`, anything else as it is.
        static func storing(_ conditions: consuming [any ProcedureCondition]) -> CoreState {
            if conditions.count == 1, let key = loneKey(of: conditions[0]) {
                return CoreState(exclusionKey: key, otherConditions: [])
            }
            return CoreState(exclusionKey: nil, otherConditions: conditions)
        }

        /// The key of `condition` if it is a `MutualExclusion` with one key. Generic: the existential is opened,
        /// its type compared, without a dynamic cast.
        private static func loneKey<Condition: ProcedureCondition>(of condition: Condition) -> String? {
            guard Condition.self == MutualExclusion.self else { return nil }
            let keys = unsafeBitCast(condition, to: MutualExclusion.self).keys   // the same type, checked above
            return keys.count == 1 ? keys[0] : nil
        }

        /// `extras`, allocated if there is none yet.
        private mutating func ensureExtras() -> Extras {
            if let extras { return extras }
            let new = Extras()
            extras = new
            return new
        }
    }

    /// The output of a finished procedure in 8 bytes instead of 33: nothing, `()` (most procedures), or boxed.
    enum StoredOutput {
        case none
        case void
        case boxed(Box)

        /// An immutable box holding an output.
        final class Box: Sendable {
            let value: any Sendable

            init(_ value: any Sendable) { self.value = value }
        }

        /// Stores `output` in a box (`nil` as `.none`). A procedure whose output is `Void` stores `.void` instead,
        /// with no box (see `producesVoid`).
        init(boxing output: (any Sendable)?) {
            guard let output else {
                self = .none
                return
            }
            self = .boxed(Box(output))
        }

        /// The output.
        var value: (any Sendable)? {
            switch self {
            case .none: nil
            case .void: ()
            case .boxed(let box): box.value
            }
        }
    }

    /// The lists of `CoreState` that a procedure with no dependency, dependent, observer, cancel handler or waiter
    /// — most of them — leaves empty: kept out of line, so that such a procedure is 32 bytes smaller (fewer pages
    /// to fault in and fewer cache lines to fetch when procedures are created by the hundred thousand).
    /// Part of the procedure's state: read and written only under its lock, like the rest of `CoreState`, until
    /// `markFinished` takes it out of the state as a whole (nobody else reaches it after that).
    final class Extras {
        var dependencies: [AnyProcedure] = []
        var dependents: [AnyProcedure] = []
        var observers: [any ProcedureObserver] = []
        var cancelHandlers: [@Sendable () -> Void] = []
        var finishWaiters: [CheckedContinuation<ProcedureOutcome, Never>] = []
    }

    // Not inlined into the generic `Procedure<Output>` initialisers: compiled once, concretely, it initialises the
    // fields without going through type metadata.
    @inline(never)
    init(
        name: String,
        priority: ProcedurePriority,
        conditions: [any ProcedureCondition],
        retryPolicy: RetryPolicy,
        tags: [String: String],
        previousAttempts: Int,
        cancelsOnDependencyFailure: Bool,
        runsSynchronously: Bool,
        producesVoid: Bool
    ) {
        self.id = ProcedureID.next()
        self.name = name
        self.priority = priority
        self.tags = tags
        self.storedRetryPolicy = StoredRetryPolicy(retryPolicy)
        self.storedPreviousAttempts = Int32(clamping: max(0, previousAttempts))
        self.checksDependencyOutcomes = cancelsOnDependencyFailure
        self.runsSynchronously = runsSynchronously
        self.producesVoid = producesVoid
        self.core = CoreState.storing(conditions)
    }

    // MARK: The body (overridden by `Procedure<Output>`)

    /// Runs the asynchronous body once. Called only by the procedure's driver while it is `executing`.
    nonisolated(nonsending) func invoke(_ context: ProcedureContext) async throws -> any Sendable {
        preconditionFailure("AnyProcedure is abstract; create a Procedure")
    }

    /// Runs the synchronous body once (`runsSynchronously`). Called only by the driver while it is `executing`.
    func invokeSynchronously(_ context: ProcedureContext) throws -> any Sendable {
        preconditionFailure("AnyProcedure is abstract; create a Procedure")
    }

    /// Drops the body; called once, right after `markFinished` (outside the lock: the body's captures may run any
    /// code when released).
    func dropBody() {}

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
    public var anyOutput: (any Sendable)? { state.withLock { $0.output }.value }
    /// The current (or last) attempt number, counting earlier runs; 0 before the first attempt.
    public var attempt: Int { state.withLock { previousAttempts + Int($0.attemptsThisRun) } }
    /// The procedures this one waits for (empty once it has finished).
    public var dependencies: [AnyProcedure] { state.withLock { $0.dependencies } }
    /// The conditions, including the implicit `NoFailedDependencies` unless opted out.
    public var conditions: [any ProcedureCondition] {
        let explicit = state.withLock { $0.conditions }
        return checksDependencyOutcomes ? explicit + [NoFailedDependencies()] : explicit
    }
    /// The exclusivity keys of all conditions, without duplicates, in order.
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
            state.dependencies.append(dependency)
        }
        dependency.state.withLock { $0.hasDependents = true }
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
            state.observers.append(observer)
        }
    }

    // MARK: Cancelling and waiting

    /// Cancels the procedure: before it starts it never executes; while it runs, its task is cancelled and its
    /// cancel handlers run at once. Only the first call has an effect; cancelling a finished procedure does nothing.
    public func cancel(reason: CancellationReason = .requested("cancel")) {
        enum Action { case none, markOnly, interrupt(DriverHandle?, [@Sendable () -> Void]), finish(ProcedureQueue) }
        // The queue is taken (and retained) in the same critical section: the procedure is unfinished there, so
        // its queue is alive; read later, it may already be gone with the procedure's finish, and streams would miss
        // the event.
        let (action, observers, queue): (Action, [any ProcedureObserver], ProcedureQueue?) = state.withLock { state in
            guard state.lifecycle != .finished, state.cancelReason == nil else { return (.none, [], nil) }
            state.cancelReason = reason
            let queue = state.queue?.takeUnretainedValue()
            if state.hasDriver {
                let handlers = state.cancelHandlers
                state.cancelHandlers = []
                return (.interrupt(state.driver, handlers), state.observers, queue)
            }
            if let queue { return (.finish(queue), state.observers, queue) }
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
            driver?.cancel(ifDriving: id)
            for handler in handlers { handler() }
        case .finish(let queue):
            queue.complete(self, outcome: .cancelled(reason), output: nil, holdsSlot: false)
        }
    }

    /// Waits until the procedure has finished and returns its outcome.
    public func waitUntilFinished() async -> ProcedureOutcome {
        await withCheckedContinuation { continuation in
            let done: ProcedureOutcome? = state.withLock { state in
                if let outcome = state.outcome { return outcome }
                state.finishWaiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }
}
