/// Everything about a procedure that changes, kept behind the procedure's own lock (`AnyProcedure.state`).
///
/// The rule of that lock: its holder takes no other lock and calls nothing out; what must be delivered or released
/// (observers, waiters, handlers, dependents) is taken out of the state and used after the lock.
struct ProcedureCore {
    var lifecycle = ProcedureState.initialized
    var cancelReason: CancellationReason?
    /// Whether its first attempt (or, for a group, its children) started.
    var started = false
    /// Whether some procedure was made to depend on it (known before the dependents are added).
    var hasDependents = false
    /// Whether it heads every one of its keys' lines.
    var keysGranted = false
    /// Whether its dependencies have finished and it is registered with them.
    var dependenciesDone = false
    var previousAttempts: Int
    var attemptsThisRun = 0
    /// Dependencies not finished yet, plus one until the queue has registered it with all of them.
    var remainingDependencies = 0
    /// The explicit conditions, in order (the implicit `NoFailedDependencies` is `checksDependencyOutcomes`).
    var conditions: [any ProcedureCondition]
    /// Its exclusivity keys, without duplicates (recorded when it is added).
    var keys: [String] = []
    /// What stands between it and ready once its dependencies are done and its keys held (recorded when added).
    var plan = Plan()
    /// The queue it was added to, until it finishes.
    var queue: ProcedureQueue?
    /// The task that evaluates its conditions or runs its body, once it has one; it alone then finishes it.
    var driver: DriverHandle?
    var outcome: ProcedureOutcome?
    var output: (any Sendable)?
    /// The lists most procedures leave empty, allocated with the first element of any of them.
    var relations: Relations?

    /// `relations`, allocated if there are none yet: `state.relate().observers.append(observer)`.
    mutating func relate() -> Relations {
        if let relations { return relations }
        let new = Relations()
        relations = new
        return new
    }

    /// What it waits for.
    var dependencies: [AnyProcedure] { relations?.dependencies ?? [] }
    /// Who hears its events.
    var observers: [any ProcedureObserver] { relations?.observers ?? [] }
    /// A group's children, in dependency order.
    var children: [AnyProcedure] { relations?.children ?? [] }
}

/// The part of a procedure's state that most procedures never use: dependencies, dependents, observers, cancel
/// handlers, waiters, a continued attempt count, a group's children, a child's group. Reached only under the
/// procedure's lock, like the rest of `ProcedureCore`, until the finish takes it out whole for the finishing thread.
final class Relations {
    var dependencies: [AnyProcedure] = []
    /// Who waits for it (registered when they are added to a queue).
    var dependents: [AnyProcedure] = []
    var observers: [any ProcedureObserver] = []
    /// What runs when it is cancelled during this attempt.
    var cancelHandlers: [@Sendable () -> Void] = []
    /// Who awaits its outcome.
    var finishWaiters: [CheckedContinuation<ProcedureOutcome, Never>] = []
    /// The dependency whose attempt count it continues (`continueAttemptCount(of:)`).
    var attemptCountSource: AnyProcedure?
    /// A group's children, in dependency order; emptied when the group finishes.
    var children: [AnyProcedure] = []
    /// A running group's children that have not finished.
    var unfinishedChildren = 0
    /// The group that started this procedure as its child, until it finishes.
    var parent: AnyProcedure?
    /// For a group, whether it started its children (set when it finishes, for `Finishing.unstartedChildren`).
    var hasStarted = true
}

/// What a procedure hands back when it finishes, for delivery outside its lock.
struct Finishing {
    /// Its exclusivity keys, whose lines it leaves.
    var keys: [String]
    /// Its observers, dependents, waiters and group, if it had any (taken out of its state whole).
    var relations: Relations?
    /// For a group that finished without starting: its children, which were never added.
    var unstartedChildren: [AnyProcedure] { relations.map { $0.hasStarted ? [] : $0.children } ?? [] }
}

/// What a procedure's conditions ask of the queue, read just before it is attached.
struct Preparation {
    let procedure: AnyProcedure
    /// Its exclusivity keys, without duplicates.
    let keys: [String]
    let plan: Plan
    /// Whether one of its dependencies is not added to a queue yet (it may come later in the list being added).
    let waitsForUnadded: Bool
}

/// What a procedure looks like to the queue when it is added.
struct Admission {
    let procedure: AnyProcedure
    let keys: [String]
    let dependencies: [AnyProcedure]
    let hasDependents: Bool
    let observers: [any ProcedureObserver]
    /// Whether it is ready as soon as it holds its keys: no dependency to wait for, no dependent whose place in its
    /// lines must be checked, not cancelled (`dependenciesDone`, recorded when it is attached).
    let isIndependent: Bool
}

/// What stands between a procedure whose dependencies are done and keys are held, and its being ready.
struct Plan {
    /// Conditions with an asynchronous evaluation step.
    var asynchronousConditions: [any ProcedureCondition] = []
    /// Whether the dependencies' outcomes are checked (`NoFailedDependencies` applies and there are dependencies).
    var checksDependencies = false
    /// Whether it continues a dependency's attempt count.
    var continuesAttempts = false
    /// Whether it is a group (started by adding its children).
    var isGroup = false

    /// Whether nothing stands in the way: the queue makes it ready under its own lock.
    var isImmediate: Bool { asynchronousConditions.isEmpty && !checksDependencies && !continuesAttempts && !isGroup }
}

/// Where a procedure stands once the queue records that its keys are held or its dependencies done.
enum Readiness {
    /// Still waiting for its keys or its dependencies (or finished meanwhile).
    case waiting
    /// Nothing stood in the way: it moved to `ready`, to be queued for a slot.
    case ready
    /// Its dependencies' outcomes, its conditions, its attempt count or its children come first (`open`).
    case open(Plan)
}

/// What `beginExecuting` found.
enum Beginning {
    case go(attempt: Int, firstStart: Bool, observers: [any ProcedureObserver])
    case cancelled(CancellationReason)
    case alreadyFinished
}
