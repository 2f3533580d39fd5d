import Locking
import Synchronization

/// Runs procedures: dependencies, conditions, mutual exclusion, priorities, bounded concurrency, retry and
/// cancellation, on Swift concurrency (the seeds' `OperationQueue`).
///
/// Each procedure passes `pending` (waiting for its dependencies and for the head of its exclusivity lines) →
/// `evaluatingConditions` → `ready` (waiting for a slot, higher priority first) → `executing` → `finished`, with
/// `waitingToRetry` between attempts. Its work runs in a task that `cancel` cancels. A `GroupProcedure` runs its
/// children on the same queue and holds its keys until they have all finished.
///
/// ```swift
/// let queue = ProcedureQueue(maxConcurrentProcedures: 4)
/// let events = queue.events()                                  // every procedure's events, as values
/// for item in items {
///     let exclusive = MutualExclusion("item:\(item.id)")       // one procedure per item at a time
///     queue.add(Procedure<Void>(name: "process", conditions: [exclusive], retry: .standard) { context in
///         try await item.process { done, total in context.reportProgress(completed: done, total: total) }
///     })
/// }
/// await queue.waitUntilAllFinished()
/// // elsewhere: queue.cancel(key: "item:\(id)")               // cancels its running and waiting procedures
/// ```
///
/// The queue's work is split by stage: admission (`add`), readiness (keys, dependencies, conditions, slots),
/// driving (attempts and retries), completion, groups and events, each in its own file.
public final class ProcedureQueue: Sendable {
    /// The most procedures executing at once (`NSOperationQueue`'s `maxConcurrentOperationCount`); a caller that
    /// learns more about its resources changes it with `setMaxConcurrentProcedures`.
    public var maxConcurrentProcedures: Int { concurrencyLimit.load(ordering: .relaxed) }
    private let concurrencyLimit: Atomic<Int>
    /// The clock for backoff and network waits.
    public let clock: any EngineClock
    /// The source of jitter.
    public let random: any RandomSource
    /// Where the queue's driver tasks — which evaluate conditions and run bodies — prefer to run; `nil`: the global
    /// concurrent executor.
    public let taskExecutor: (any TaskExecutor)?

    /// The scheduling state: which procedures are unfinished, the exclusivity and ready lines, the slots.
    let state = Locked(QueueState())
    /// The open event streams.
    let subscribers = Locked(Subscribers())
    /// How many event streams are open, read without the lock on every event.
    let subscriberCount = Atomic<Int>(0)

    /// Creates a queue; its driver tasks prefer `taskExecutor` when one is given.
    public init(
        maxConcurrentProcedures: Int = 4,
        clock: any EngineClock = ContinuousEngineClock(),
        random: any RandomSource = SystemRandomSource(),
        taskExecutor: (any TaskExecutor)? = nil
    ) {
        concurrencyLimit = Atomic(max(1, maxConcurrentProcedures))
        self.clock = clock
        self.random = random
        self.taskExecutor = taskExecutor
    }

    /// From now on at most `count` procedures (at least one) execute at once. Raising it starts ready procedures at
    /// once; lowering it lets those executing finish and starts none until fewer than `count` execute.
    public func setMaxConcurrentProcedures(_ count: Int) {
        let limit = max(1, count)
        perform(state.withLock { state in
            concurrencyLimit.store(limit, ordering: .relaxed)
            return state.grantSlots(max: limit)
        })
    }

    // MARK: Cancelling and waiting

    /// Cancels every unfinished procedure whose `add` has returned (one still being added by another thread — an
    /// observer or condition calling this from inside `add` — may be missed).
    public func cancelAll(reason: CancellationReason = .requested("cancel all")) {
        let all = state.withLock { state in Array(state.keyless.values) + state.lines.allMembers() }
        for procedure in all { procedure.cancel(reason: reason) }
    }

    /// Cancels every unfinished procedure holding or waiting for `key`; returns how many were cancelled.
    @discardableResult
    public func cancel(key: String, reason: CancellationReason? = nil) -> Int {
        let members = state.withLock { state in state.lines.members(of: key) }
        let live = members.filter { !$0.isCancelled }
        for procedure in live { procedure.cancel(reason: reason ?? .requested("cancel \(key)")) }
        return live.count
    }

    /// Waits until no procedure is unfinished.
    public func waitUntilAllFinished() async {
        await waitUntilUnfinished(atMost: 0)
    }

    /// Waits until at most `limit` procedures are unfinished (for feeding the queue in windows).
    public func waitUntilUnfinished(atMost limit: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.unfinishedCount <= limit { return true }
                state.capacityWaiters.append((limit, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    // MARK: Reading

    /// The number of procedures added and not yet finished.
    public var unfinishedCount: Int { state.withLock { $0.unfinishedCount } }
    /// The highest `unfinishedCount` seen so far.
    public var peakUnfinishedCount: Int { state.withLock { $0.peakUnfinished } }
    /// The number of procedures holding a concurrency slot now.
    public var executingCount: Int { state.withLock { $0.running } }
    /// The procedure currently holding `key`, if any.
    public func holder(of key: String) -> AnyProcedure? {
        state.withLock { state in state.lines.holder(of: key) }
    }
}

extension ProcedureQueue {
    /// A place in the ready lines: a procedure that needs a driver task, or a driver task waiting in `acquireSlot`.
    enum ReadyEntry {
        case start(AnyProcedure)
        case resume(ProcedureID)
    }

    /// A concurrency slot handed over: to a suspended driver, or to a ready procedure that needs a new task.
    enum Grant {
        case resume(CheckedContinuation<Void, any Error>)
        case spawn(AnyProcedure)
    }

    /// Everything the queue's lock guards.
    ///
    /// The unfinished procedures the queue has registered are in the lines of their keys, or, without keys, in
    /// `keyless`. What the queue knows of each (its keys, its plan, whether it holds its keys and whether its
    /// dependencies are done) is kept in the procedure's own state. Lock order: the queue's lock, then a procedure's.
    struct QueueState {
        /// The exclusivity lines, holding every unfinished procedure that has keys.
        var lines = ExclusivityLines<AnyProcedure>()
        /// The unfinished procedures without keys.
        var keyless: [ProcedureID: AnyProcedure] = [:]
        /// The unfinished procedures, counting those whose finish is still being announced.
        var unfinishedCount = 0
        var peakUnfinished = 0
        var ready = ReadyLines<ReadyEntry>()
        /// Slots held.
        var running = 0
        /// Driver tasks suspended in `acquireSlot`, by the procedure they drive.
        var slotWaiters: [ProcedureID: CheckedContinuation<Void, any Error>] = [:]
        /// Drivers cancelled before they could wait for a slot.
        var withdrawn: Set<ProcedureID> = []
        /// Procedures finished (cancelled) after `attach` and before their registration, which must skip them.
        var finishedEarly: Set<ProcedureID> = []
        var capacityWaiters: [(Int, CheckedContinuation<Void, Never>)] = []

        /// Counts a procedure as unfinished.
        mutating func count() {
            unfinishedCount += 1
            peakUnfinished = max(peakUnfinished, unfinishedCount)
        }

        /// Uncounts a finished procedure; returns the waiters of `waitUntilUnfinished` whose limit is now reached.
        mutating func uncount() -> [CheckedContinuation<Void, Never>] {
            unfinishedCount -= 1
            guard !capacityWaiters.isEmpty else { return [] }
            var waiters: [CheckedContinuation<Void, Never>] = []
            let count = unfinishedCount
            capacityWaiters.removeAll { limit, continuation in
                guard count <= limit else { return false }
                waiters.append(continuation)
                return true
            }
            return waiters
        }

        /// Queues a ready procedure that needs a driver task.
        mutating func pushReady(_ procedure: AnyProcedure) {
            ready.insert(.start(procedure), priority: procedure.priority.rawValue)
        }

        /// Hands free slots to the best waiters.
        mutating func grantSlots(max: Int) -> [Grant] {
            var grants: [Grant] = []
            while running < max, let grant = popReady() {
                running += 1
                grants.append(grant)
            }
            return grants
        }

        /// Gives a slot back and hands the free slots on.
        mutating func releaseSlot(max: Int) -> [Grant] {
            running -= 1
            return grantSlots(max: max)
        }

        /// Takes the best ready entry that still waits (a driver that left `acquireSlot` withdrew its entry).
        mutating func popReady() -> Grant? {
            while let entry = ready.popMax() {
                switch entry {
                case .start(let procedure):
                    return .spawn(procedure)
                case .resume(let id):
                    if let continuation = slotWaiters.removeValue(forKey: id) { return .resume(continuation) }
                }
            }
            return nil
        }
    }
}
