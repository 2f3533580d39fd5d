import HeapModule
import Synchronization

/// Runs procedures: dependencies, conditions, mutual exclusion, priorities, bounded concurrency, retry and
/// cancellation, on Swift concurrency (the seeds' `OperationQueue`).
///
/// Life cycle of each procedure: `pending` (waiting for its dependencies and for the head of its exclusivity
/// lines) → `evaluatingConditions` → `ready` (waiting for a slot, higher priority first) → `executing` →
/// `finished`, with `waitingToRetry` between attempts. Work runs in a task that `cancel` cancels.
///
/// How the sync engine uses it — per recipe an image step whose URL feeds the JSON step, both exclusive on the
/// recipe and conditional on the server being reachable; the queue is fed in windows from the database:
///
/// ```swift
/// let queue = ProcedureQueue(maxConcurrentProcedures: jobs)
/// let reachable = ReachabilityCondition(host: host, port: port, probe: tcpProbe)
/// let events = queue.events()                       // rendered as progress bars or NDJSON
/// try await queue.feed(window: 256) { limit in      // at most 256 unfinished procedures in memory
///     try store.nextDue(limit: limit).flatMap { recipe -> [AnyProcedure] in
///         let exclusive = MutualExclusion("recipe:\(recipe.uuid)")
///         let image = Procedure<URL>(name: "image", conditions: [exclusive, reachable], retry: .standard,
///                                    tags: ["uuid": recipe.uuid, "step": "image"]) { context in
///             try await transport.putImage(recipe.imageFile)   // libcurl abort on task cancellation
///         }
///         let json = Procedure<Int>(name: "recipe", input: image, conditions: [exclusive, reachable],
///                                   retry: .standard, tags: ["uuid": recipe.uuid, "step": "recipe"]) { url, _ in
///             try await transport.putRecipe(recipe, imageURL: url)
///         }
///         return [image.erased, json.erased]
///     }
/// }
/// await queue.waitUntilAllFinished()
/// // elsewhere: queue.cancel(key: "recipe:\(uuid)")   // `recipes cancel`, aborts the transfer at once
/// ```
public final class ProcedureQueue: Sendable {
    /// The most procedures executing at once.
    public let maxConcurrentProcedures: Int
    /// The clock for backoff and network waits.
    public let clock: any EngineClock
    /// The source of jitter.
    public let random: any RandomSource

    let state: Locked<QueueState>
    private let subscribers = Locked<Subscribers>(Subscribers())
    private let subscriberCount = Atomic<Int>(0)

    /// Creates a queue.
    public init(
        maxConcurrentProcedures: Int = 4,
        clock: any EngineClock = ContinuousEngineClock(),
        random: any RandomSource = SystemRandomSource()
    ) {
        self.maxConcurrentProcedures = max(1, maxConcurrentProcedures)
        self.clock = clock
        self.random = random
        self.state = Locked(QueueState())
    }

    // MARK: Adding

    /// Adds a procedure (and first any dependency its conditions contribute).
    ///
    /// Add a procedure after the procedures it depends on when they share an exclusivity key (or add them
    /// together with `add(_:)` on an array, which orders them): otherwise it fails at once with
    /// `EngineError.waitsOnItself` instead of waiting forever.
    public func add(_ procedure: AnyProcedure) {
        addContributedDependencies(of: procedure)
        let attachment = procedure.attach(to: self)
        if attachment.isSimple {
            addSimple([(procedure, attachment)])
        } else {
            addAttached(procedure, attachment)
        }
    }

    /// Adds several procedures, dependencies before their dependents; simple ones are registered in batches
    /// under one lock acquisition.
    public func add(_ procedures: [AnyProcedure]) {
        var batch: [(AnyProcedure, AnyProcedure.Attachment)] = []
        batch.reserveCapacity(Swift.min(procedures.count, 128))
        for procedure in Self.dependencyOrder(procedures) {
            addContributedDependencies(of: procedure)
            let attachment = procedure.attach(to: self)
            if attachment.isSimple {
                batch.append((procedure, attachment))
                if batch.count == 128 {
                    addSimple(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            } else {
                addSimple(batch)
                batch.removeAll(keepingCapacity: true)
                addAttached(procedure, attachment)
            }
        }
        addSimple(batch)
    }

    private func addContributedDependencies(of procedure: AnyProcedure) {
        for condition in procedure.conditions where !(condition is NoFailedDependencies || condition is MutualExclusion) {
            if let dependency = condition.dependency(for: procedure) {
                procedure.addDependency(dependency)
                if dependency.lifecycle == .initialized { add(dependency) }
            }
        }
    }

    /// Registers procedures with no dependency, no dependent, no observer and no early cancellation, making those
    /// whose keys are free ready at once — all under one acquisition of the lock.
    private func addSimple(_ batch: [(AnyProcedure, AnyProcedure.Attachment)]) {
        guard !batch.isEmpty else { return }
        let max = maxConcurrentProcedures
        let (grants, opens) = state.withLock { state -> ([Grant], [Entry]) in
            var opens: [Entry] = []
            for (procedure, attachment) in batch where !procedure.isFinished {
                let granted = state.lines.enqueue(procedure.id, keys: attachment.keys)
                var entry = Entry(
                    procedure: procedure, plan: attachment.plan, keysGranted: granted, hasKeys: !attachment.keys.isEmpty)
                entry.dependenciesDone = true
                state.entries[procedure.id] = entry
                guard granted else { continue }
                if attachment.plan.asynchronousConditions.isEmpty {
                    if procedure.becomeReady() { state.pushReady(procedure, waiter: .spawn(procedure)) }
                } else {
                    opens.append(entry)
                }
            }
            state.peakUnfinished = Swift.max(state.peakUnfinished, state.entries.count)
            return (state.grantSlots(max: max), opens)
        }
        perform(grants)
        for open in opens { openGate(open) }
    }

    private func addAttached(_ procedure: AnyProcedure, _ attachment: AnyProcedure.Attachment) {
        let keys = attachment.keys
        let max = maxConcurrentProcedures
        // Fast path: no dependency and not cancelled early — register, and get ready at once if the keys are free.
        let independent = attachment.dependencies.isEmpty && attachment.cancelledEarly == nil
        let registration: Registration = state.withLock { state in
            guard !procedure.isFinished else { return .skipped }
            var ahead: [AnyProcedure] = []
            if attachment.hasDependents {
                for key in keys {
                    ahead += state.lines.members(of: key).compactMap { state.entries[$0]?.procedure }
                }
            }
            let granted = state.lines.enqueue(procedure.id, keys: keys)
            var entry = Entry(procedure: procedure, plan: attachment.plan, keysGranted: granted, hasKeys: !keys.isEmpty)
            var grants: [Grant] = []
            var open = false
            if independent, ahead.isEmpty {
                entry.dependenciesDone = true
                if granted {
                    if attachment.plan.asynchronousConditions.isEmpty {
                        if procedure.becomeReady() {
                            state.pushReady(procedure, waiter: .spawn(procedure))
                            grants = state.grantSlots(max: max)
                        }
                    } else {
                        open = true
                    }
                }
            }
            state.entries[procedure.id] = entry
            state.peakUnfinished = Swift.max(state.peakUnfinished, state.entries.count)
            return .registered(ahead: ahead, grants: grants, open: open ? entry : nil)
        }
        guard case .registered(let ahead, let grants, let open) = registration else { return }
        for observer in attachment.observers { observer.procedureWasAdded(procedure) }
        if independent, ahead.isEmpty {
            perform(grants)
            if let open { openGate(open) }
            return
        }

        if !ahead.isEmpty, let conflict = selfWait(of: procedure, keys: keys, ahead: ahead) {
            complete(procedure, outcome: .failed(conflict), output: nil, holdsSlot: false)
            return
        }

        var alreadyFinished = 0
        for dependency in attachment.dependencies where !dependency.registerDependent(procedure) {
            alreadyFinished += 1
        }
        let settled = procedure.settleDependencies(alreadyFinished: alreadyFinished)
        if let reason = settled.cancelledEarly {
            // Cancelled before it was added: it never executes.
            complete(procedure, outcome: .cancelled(reason), output: nil, holdsSlot: false)
        } else if settled.satisfied {
            dependenciesSatisfied(procedure)
        }
    }

    /// Adds a typed procedure.
    public func add<Output>(_ procedure: Procedure<Output>) { add(procedure.erased) }

    // MARK: Cancelling and waiting

    /// Cancels every unfinished procedure.
    public func cancelAll(reason: CancellationReason = .requested("cancel all")) {
        let all = state.withLock { $0.entries.values.map(\.procedure) }
        for procedure in all { procedure.cancel(reason: reason) }
    }

    /// Cancels every unfinished procedure holding or waiting for `key`; returns how many were cancelled.
    @discardableResult
    public func cancel(key: String, reason: CancellationReason? = nil) -> Int {
        let members = state.withLock { state in state.lines.members(of: key).compactMap { state.entries[$0]?.procedure } }
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
                if state.entries.count <= limit { return true }
                state.capacityWaiters.append((limit, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// The number of procedures added and not yet finished.
    public var unfinishedCount: Int { state.withLock { $0.entries.count } }
    /// The highest `unfinishedCount` seen so far.
    public var peakUnfinishedCount: Int { state.withLock { $0.peakUnfinished } }
    /// The number of procedures holding a concurrency slot now.
    public var executingCount: Int { state.withLock { $0.running } }
    /// The procedure currently holding `key`, if any.
    public func holder(of key: String) -> AnyProcedure? {
        state.withLock { state in state.lines.holder(of: key).flatMap { state.entries[$0]?.procedure } }
    }

    // MARK: Events

    /// A stream of every event of every procedure added to this queue, from now on.
    public func events() -> AsyncStream<ProcedureEvent> {
        let (stream, continuation) = AsyncStream<ProcedureEvent>.makeStream(bufferingPolicy: .unbounded)
        let token = subscribers.withLock { subscribers in
            subscribers.next += 1
            subscribers.continuations[subscribers.next] = continuation
            subscriberCount.store(subscribers.continuations.count, ordering: .relaxed)
            return subscribers.next
        }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            subscribers.withLock { subscribers in
                subscribers.continuations.removeValue(forKey: token)
                subscriberCount.store(subscribers.continuations.count, ordering: .relaxed)
            }
        }
        return stream
    }

    /// Whether any event stream is open (read without the lock on the hot path).
    var hasSubscribers: Bool { subscriberCount.load(ordering: .relaxed) > 0 }

    /// Sends `event` to every stream.
    func broadcast(_ event: ProcedureEvent) {
        guard hasSubscribers else { return }
        let continuations = subscribers.withLock { Array($0.continuations.values) }
        for continuation in continuations { continuation.yield(event) }
    }

    /// Delivers `event` to the procedure's observers and to every stream.
    func emit(_ event: ProcedureEvent, for procedure: AnyProcedure, child: AnyProcedure? = nil) {
        emit(event, for: procedure, observers: procedure.currentObservers, child: child)
    }

    /// Delivers `event` to `observers` and to every stream.
    func emit(_ event: @autoclosure () -> ProcedureEvent, for procedure: AnyProcedure, observers: [any ProcedureObserver], child: AnyProcedure? = nil) {
        guard !observers.isEmpty || hasSubscribers else { return }
        let event = event()
        for observer in observers { observer.receive(event, from: procedure, child: child) }
        broadcast(event)
    }

    // MARK: Scheduling

    /// Called when the last dependency finished.
    func dependenciesSatisfied(_ procedure: AnyProcedure) {
        let open = state.withLock { state -> Entry? in
            guard var entry = state.entries[procedure.id] else { return nil }
            entry.dependenciesDone = true
            state.entries[procedure.id] = entry
            return entry.keysGranted ? entry : nil
        }
        if let open { openGate(open) }
    }

    /// Dependencies done and keys held: check dependencies' outcomes, then evaluate conditions or get ready.
    private func openGate(_ entry: Entry) {
        let procedure = entry.procedure
        if entry.plan.checksDependencies, let reason = NoFailedDependencies.check(procedure.dependencies) {
            procedure.cancel(reason: reason)
            return
        }
        if entry.plan.asynchronousConditions.isEmpty {
            guard procedure.becomeReady() else { return }
            let grants = state.withLock { state -> [Grant] in
                state.pushReady(procedure, waiter: .spawn(procedure))
                return state.grantSlots(max: maxConcurrentProcedures)
            }
            perform(grants)
        } else {
            let driver = DriverHandle(driving: procedure.id)
            guard procedure.claimDriver(driver) else { return }
            let conditions = entry.plan.asynchronousConditions
            let task = Task { await self.work(procedure, driver: driver, conditions: conditions, holdsSlot: false) }
            driver.setTask(task)
        }
    }

    /// Hands slots to waiting procedures: resumes drivers or starts new ones.
    func perform(_ grants: [Grant]) {
        var pending = grants
        var index = 0
        while index < pending.count {
            let grant = pending[index]
            index += 1
            switch grant {
            case .resume(let continuation):
                continuation.resume()
            case .spawn(let procedure):
                let driver = DriverHandle(driving: procedure.id)
                if procedure.claimDriver(driver) {
                    let task = Task { await self.work(procedure, driver: driver, conditions: [], holdsSlot: true) }
                    driver.setTask(task)
                } else {
                    pending += state.withLock { $0.releaseSlot(max: maxConcurrentProcedures) }
                }
            }
        }
    }

    /// A driver task: drives `first`, then, while it holds a slot, every ready procedure the queue hands it.
    private func work(_ first: AnyProcedure, driver: DriverHandle, conditions: [any ProcedureCondition], holdsSlot: Bool) async {
        var next = await drive(first, conditions: conditions, holdsSlot: holdsSlot, evaluate: !holdsSlot)
        while let procedure = next {
            // The slot was handed to this task together with `procedure`, which has no driver yet.
            guard driver.switchTo(procedure.id) else {
                perform([.spawn(procedure)])   // this task was cancelled: a fresh one takes over, with the slot
                return
            }
            guard procedure.claimDriver(driver) else {
                releaseSlot()   // cancelled meanwhile; its canceller finishes it
                return
            }
            next = await drive(procedure, conditions: [], holdsSlot: true, evaluate: false)
        }
    }

    /// Waits for a concurrency slot (cancellable).
    func acquireSlot(_ procedure: AnyProcedure) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let grants = state.withLock { state -> [Grant]? in
                    if state.withdrawn.remove(procedure.id) != nil { return nil }
                    state.pushReady(procedure, waiter: .resume(continuation))
                    return state.grantSlots(max: maxConcurrentProcedures)
                }
                if let grants { perform(grants) } else { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Grant? in
                if let waiter = state.readyWaiters.removeValue(forKey: procedure.id) { return waiter }
                state.withdrawn.insert(procedure.id)
                return nil
            }
            if case .resume(let continuation)? = waiter { continuation.resume(throwing: CancellationError()) }
        }
    }

    /// Gives a slot back.
    func releaseSlot() {
        perform(state.withLock { $0.releaseSlot(max: maxConcurrentProcedures) })
    }

    /// Finishes a procedure exactly once, releases its keys, and wakes whoever waited on it.
    ///
    /// With `holdsSlot` the slot is released, or, with `takeNext`, handed back together with the next ready
    /// procedure that has no driver yet (the caller drives it).
    @discardableResult
    func complete(
        _ procedure: AnyProcedure, outcome: ProcedureOutcome, output: (any Sendable)?, holdsSlot: Bool,
        takeNext: Bool = false
    ) -> AnyProcedure? {
        guard let finishing = procedure.markFinished(outcome: outcome, output: output) else {
            if holdsSlot { releaseSlot() }
            return nil
        }
        let max = maxConcurrentProcedures
        let (opens, grants, next, waiters) = state.withLock {
            state -> ([Entry], [Grant], AnyProcedure?, [CheckedContinuation<Void, Never>]) in
            guard let removed = state.entries.removeValue(forKey: procedure.id) else {
                return ([], holdsSlot ? state.releaseSlot(max: max) : [], nil, [])
            }
            var opens: [Entry] = []
            if removed.hasKeys {
                for id in state.lines.remove(procedure.id) {
                    guard var entry = state.entries[id] else { continue }
                    entry.keysGranted = true
                    state.entries[id] = entry
                    guard entry.dependenciesDone else { continue }
                    if entry.plan.asynchronousConditions.isEmpty, !entry.plan.checksDependencies {
                        // Ready at once: queue it under this same lock, before choosing what runs next.
                        if entry.procedure.becomeReady() { state.pushReady(entry.procedure, waiter: .spawn(entry.procedure)) }
                    } else {
                        opens.append(entry)
                    }
                }
            }
            if !holdsSlot, !state.readyWaiters.isEmpty { state.readyWaiters.removeValue(forKey: procedure.id) }
            if !state.withdrawn.isEmpty { state.withdrawn.remove(procedure.id) }
            var grants: [Grant] = []
            var next: AnyProcedure?
            if holdsSlot {
                if takeNext, let waiter = state.popWaiter() {
                    switch waiter {
                    case .spawn(let candidate): next = candidate
                    case .resume: grants = [waiter]
                    }
                } else {
                    grants = state.releaseSlot(max: max)
                }
            } else if state.running < max {
                grants = state.grantSlots(max: max)
            }
            var waiters: [CheckedContinuation<Void, Never>] = []
            if !state.capacityWaiters.isEmpty {
                let count = state.entries.count
                state.capacityWaiters.removeAll { limit, continuation in
                    guard count <= limit else { return false }
                    waiters.append(continuation)
                    return true
                }
            }
            return (opens, grants, next, waiters)
        }
        emit(.finished(procedure.info, outcome: outcome), for: procedure, observers: finishing.observers)
        for waiter in finishing.waiters { waiter.resume(returning: outcome) }
        perform(grants)
        for open in opens { openGate(open) }
        for dependent in finishing.dependents where dependent.dependencyFinished() {
            dependent.attachedQueue?.dependenciesSatisfied(dependent)
        }
        for waiter in waiters { waiter.resume() }
        return next
    }

    // MARK: Self-wait detection

    /// The error when a procedure ahead of `procedure` in one of its lines depends on it (it would wait forever).
    private func selfWait(of procedure: AnyProcedure, keys: [String], ahead: [AnyProcedure]) -> EngineError? {
        for member in ahead where Self.dependsTransitively(member, on: procedure) {
            let key = keys.first { member.exclusivityKeys.contains($0) } ?? keys.first ?? ""
            return .waitsOnItself(procedure: procedure.name, key: key, holder: member.name)
        }
        return nil
    }

    private static func dependsTransitively(_ start: AnyProcedure, on target: AnyProcedure) -> Bool {
        var stack = start.dependencies
        var seen = Set<ProcedureID>()
        while let next = stack.popLast() {
            if next === target { return true }
            if seen.insert(next.id).inserted { stack += next.dependencies }
        }
        return false
    }

    /// `procedures` reordered so that each comes after those of its dependencies that are in the list.
    static func dependencyOrder(_ procedures: [AnyProcedure]) -> [AnyProcedure] {
        if procedures.allSatisfy({ $0.state.withLock { $0.dependencies.isEmpty } }) { return procedures }
        let inList = Set(procedures.map(\.id))
        var placed = Set<ProcedureID>()
        var visiting = Set<ProcedureID>()
        var order: [AnyProcedure] = []
        func place(_ procedure: AnyProcedure) {
            guard !placed.contains(procedure.id), visiting.insert(procedure.id).inserted else { return }
            for dependency in procedure.dependencies where inList.contains(dependency.id) { place(dependency) }
            placed.insert(procedure.id)
            order.append(procedure)
        }
        for procedure in procedures { place(procedure) }
        return order
    }
}

extension ProcedureQueue {
    /// A waiter for a slot: a driver task suspended in `acquireSlot`, or a ready procedure with no task yet.
    enum Grant {
        case resume(CheckedContinuation<Void, any Error>)
        case spawn(AnyProcedure)
    }

    enum Registration {
        case skipped
        case registered(ahead: [AnyProcedure], grants: [Grant], open: Entry?)
    }

    /// One unfinished procedure as the queue tracks it.
    struct Entry {
        let procedure: AnyProcedure
        let plan: AnyProcedure.Plan
        var keysGranted: Bool
        let hasKeys: Bool
        var dependenciesDone = false
    }

    /// A place in the ready heap: higher priority first, then first-come.
    struct ReadyKey: Comparable {
        let priority: Int
        let sequence: UInt64
        let id: ProcedureID
        /// A procedure with no driver yet (`nil` when a suspended driver waits in `readyWaiters`).
        let procedure: AnyProcedure?

        static func == (lhs: ReadyKey, rhs: ReadyKey) -> Bool { lhs.sequence == rhs.sequence }

        static func < (lhs: ReadyKey, rhs: ReadyKey) -> Bool {
            if lhs.priority != rhs.priority { return lhs.priority < rhs.priority }
            return lhs.sequence > rhs.sequence
        }
    }

    struct Subscribers {
        var next = 0
        var continuations: [Int: AsyncStream<ProcedureEvent>.Continuation] = [:]
    }

    /// Everything the queue's lock guards.
    struct QueueState {
        var entries: [ProcedureID: Entry] = [:]
        var lines = ExclusivityLines<ProcedureID>()
        var ready = Heap<ReadyKey>()
        var readyWaiters: [ProcedureID: Grant] = [:]
        var withdrawn = Set<ProcedureID>()
        var running = 0
        var sequence: UInt64 = 0
        var peakUnfinished = 0
        var capacityWaiters: [(Int, CheckedContinuation<Void, Never>)] = []

        mutating func pushReady(_ procedure: AnyProcedure, waiter: Grant) {
            sequence += 1
            switch waiter {
            case .spawn:
                ready.insert(ReadyKey(priority: procedure.priority.rawValue, sequence: sequence, id: procedure.id, procedure: procedure))
            case .resume:
                ready.insert(ReadyKey(priority: procedure.priority.rawValue, sequence: sequence, id: procedure.id, procedure: nil))
                readyWaiters[procedure.id] = waiter
            }
        }

        /// The waiter behind a heap entry, if it is still waiting (a cancelled driver withdraws its entry).
        private mutating func waiter(for key: ReadyKey) -> Grant? {
            if let procedure = key.procedure { return .spawn(procedure) }
            return readyWaiters.removeValue(forKey: key.id)
        }

        mutating func grantSlots(max: Int) -> [Grant] {
            var grants: [Grant] = []
            while running < max, let key = ready.popMax() {
                guard let waiter = waiter(for: key) else { continue }
                running += 1
                grants.append(waiter)
            }
            return grants
        }

        /// Takes the best waiter, keeping the slot it will use (the caller's).
        mutating func popWaiter() -> Grant? {
            while let key = ready.popMax() {
                if let waiter = waiter(for: key) { return waiter }
            }
            return nil
        }

        mutating func releaseSlot(max: Int) -> [Grant] {
            running -= 1
            return grantSlots(max: max)
        }
    }
}
