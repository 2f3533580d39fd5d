import Locking
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
    // Stored in this order on purpose: the object's first cache line holds its reference count, which every driver
    // changes (a `ProcedureContext` holds the queue), so it is filled with what only retries read (`clock` and most
    // of `random`); what every finish reads — `maxConcurrentProcedures`, `state`, `subscriberCount` — comes after,
    // on the next line, where the counting does not keep taking it away from the other threads.
    /// The clock for backoff and network waits.
    public let clock: any EngineClock
    /// The source of jitter.
    public let random: any RandomSource
    /// The most procedures executing at once.
    public let maxConcurrentProcedures: Int

    let state: Locked<QueueState>
    private let subscribers = Locked<Subscribers>(Subscribers())
    private let subscriberCount = Atomic<Int>(0)
    /// Where the queue's driver tasks — which evaluate conditions and run bodies — prefer to run; `nil`: the global
    /// concurrent executor. The sync engine passes its HTTP client's transport thread, so that a step, its request
    /// and the answer stay on one thread.
    public let taskExecutor: (any TaskExecutor)?

    /// Creates a queue; its driver tasks prefer `taskExecutor` when one is given.
    public init(
        maxConcurrentProcedures: Int = 4,
        clock: any EngineClock = ContinuousEngineClock(),
        random: any RandomSource = SystemRandomSource(),
        taskExecutor: (any TaskExecutor)? = nil
    ) {
        self.taskExecutor = taskExecutor
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
        if let (keys, plan) = procedure.attachIfSimple(to: self) {
            addSimple([Admission(procedure, keys: keys, plan: plan)])
            return
        }
        _ = addContributedDependencies(of: procedure)
        let attachment = procedure.attach(to: self)
        if attachment.isSimple {
            addSimple([Admission(procedure, keys: .list(attachment.keys), plan: attachment.plan)])
        } else {
            addAttached(procedure, attachment)
        }
    }

    /// Adds several procedures, dependencies before their dependents; simple ones are registered in batches
    /// under one lock acquisition.
    ///
    /// The list is taken in chunks of `batchSize`, each visited twice while it is still in the processor's caches:
    /// first the simple procedures with engine conditions only are attached (`attachIfSimple`, one look at each),
    /// and the others asked for contributed dependencies; then all are registered. As long as no procedure has a
    /// dependency, the order is the list's. From the first chunk that has one on, the rest of the list is ordered
    /// as a whole (the procedures already attached keep what their attaching found).
    public func add(_ procedures: [AnyProcedure]) {
        var batch: [Admission] = []
        batch.reserveCapacity(Swift.min(procedures.count, Self.batchSize))
        var attached: [Admission?] = []
        attached.reserveCapacity(Swift.min(procedures.count, Self.batchSize))
        var start = procedures.startIndex
        while start < procedures.endIndex {
            let end = Swift.min(start + Self.batchSize, procedures.endIndex)
            // Contributed dependencies first, so that the order sees them too.
            var anyDependencies = false
            attached.removeAll(keepingCapacity: true)
            Self.forEachUnretained(procedures, in: start..<end) { procedure in
                if let (keys, plan) = procedure.attachIfSimple(to: self) {
                    attached.append(Admission(procedure, keys: keys, plan: plan))
                } else {
                    attached.append(nil)
                    if addContributedDependencies(of: procedure) { anyDependencies = true }
                }
            }
            if anyDependencies {
                var early: [ObjectIdentifier: Admission] = [:]
                for case let admission? in attached { early[ObjectIdentifier(admission.procedure.takeUnretainedValue())] = admission }
                for procedure in procedures[end...] { _ = addContributedDependencies(of: procedure) }
                for procedure in Self.dependencyOrder(Array(procedures[start...])) {
                    if let admission = early[ObjectIdentifier(procedure)] {
                        enqueue(admission, into: &batch)
                    } else {
                        admit(procedure, into: &batch)
                    }
                }
                break
            }
            for offset in attached.indices {
                // `take`: the admission is moved into the batch, not copied.
                if let admission = attached[offset].take() {
                    enqueue(admission, into: &batch)
                } else {
                    admit(procedures[start + offset], into: &batch)
                }
            }
            start = end
        }
        addSimple(batch)
    }

    /// Calls `body` with each of `procedures` in `range`, without reference counting: the array holds them.
    @inline(__always)
    private static func forEachUnretained(
        _ procedures: [AnyProcedure], in range: Range<Int>, _ body: (AnyProcedure) -> Void
    ) {
        procedures.withUnsafeBufferPointer { buffer in
            // An array of class references has the layout of an array of `Unmanaged` references to them.
            buffer.withMemoryRebound(to: Unmanaged<AnyProcedure>.self) { unretained in
                for index in range { unretained[index]._withUnsafeGuaranteedRef(body) }
            }
        }
    }

    /// Adds an attached simple procedure to `batch`, registering the batch when it is full.
    private func enqueue(_ admission: consuming Admission, into batch: inout [Admission]) {
        batch.append(admission)
        if batch.count == Self.batchSize {
            addSimple(batch)
            batch.removeAll(keepingCapacity: true)
        }
    }

    /// How many simple procedures `add(_:)` registers per acquisition of the lock (about 0.2 ms of holding it for
    /// a batch; measured on the engine benchmark: 1,024 beats 256, 512 and 2,048).
    private static let batchSize = 1_024

    /// Attaches `procedure` and adds it: simple ones to `batch` (registered when it is full), others at once.
    private func admit(_ procedure: AnyProcedure, into batch: inout [Admission]) {
        let attachment = procedure.attach(to: self)
        if attachment.isSimple {
            batch.append(Admission(procedure, keys: .list(attachment.keys), plan: attachment.plan))
            if batch.count == Self.batchSize {
                addSimple(batch)
                batch.removeAll(keepingCapacity: true)
            }
        } else {
            addSimple(batch)
            batch.removeAll(keepingCapacity: true)
            addAttached(procedure, attachment)
        }
    }

    /// Adds the dependencies that `procedure`'s conditions contribute (adding them to the queue first); returns
    /// whether `procedure` has any dependency now.
    private func addContributedDependencies(of procedure: AnyProcedure) -> Bool {
        let (conditions, hasDependencies) = procedure.state.withLock { ($0.conditions, !$0.dependencies.isEmpty) }
        var contributed = false
        for condition in conditions {
            if let dependency = condition.dependency(for: procedure) {
                procedure.addDependency(dependency)
                if dependency.lifecycle == .initialized { add(dependency) }
                contributed = true
            }
        }
        return hasDependencies || contributed
    }

    /// Registers procedures with no dependency, no dependent, no observer and no early cancellation, making those
    /// whose keys are free ready at once — all under one acquisition of the lock.
    private func addSimple(_ batch: [Admission]) {
        guard !batch.isEmpty else { return }
        let max = maxConcurrentProcedures
        let (grants, opens) = state.withLock { state -> ([Grant], [(AnyProcedure, AnyProcedure.Plan)]) in
            var opens: [(AnyProcedure, AnyProcedure.Plan)] = []
            // `finishedEarly` rather than the procedure's own lock: a procedure cancelled since `attach` was finished
            // by `complete`, which recorded it under this lock.
            for index in batch.indices {   // by index: each admission is read in place, not copied out
                // Unretained: `Admission` says why it is alive.
                batch[index].procedure._withUnsafeGuaranteedRef { procedure in
                    guard !procedure.scheduling.finishedEarly else { return }
                    let (ticket, granted) = switch batch[index].keys {
                    case .one(let key): state.lines.join(procedure, key: key)
                    case .list(let keys): state.lines.join(procedure, keys: keys)
                    }
                    let plan = batch[index].plan
                    if !plan.asynchronousConditions.isEmpty || plan.checksDependencies {
                        procedure.scheduling.plan = plan   // otherwise the default plan is already this one
                    }
                    procedure.scheduling.ticket = ticket
                    procedure.scheduling.keysGranted = granted
                    procedure.scheduling.dependenciesDone = true
                    if state.register(procedure) { keepAlive() }
                    guard granted else { return }
                    if plan.asynchronousConditions.isEmpty {
                        if procedure.becomeReady() { state.pushReady(procedure) }
                    } else {
                        opens.append((procedure, plan))
                    }
                }
            }
            return (state.grantSlots(max: max), opens)
        }
        perform(grants)
        for (open, plan) in opens { openGate(open, plan: plan) }
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
                    ahead += state.lines.members(of: key)
                }
            }
            let (ticket, granted) = state.lines.join(procedure, keys: keys)
            procedure.scheduling.plan = attachment.plan
            procedure.scheduling.ticket = ticket
            procedure.scheduling.keysGranted = granted
            var grants: [Grant] = []
            var open = false
            if independent, ahead.isEmpty {
                procedure.scheduling.dependenciesDone = true
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
            if state.register(procedure) { keepAlive() }
            return .registered(ahead: ahead, grants: grants, open: open)
        }
        guard case .registered(let ahead, let grants, let open) = registration else { return }
        for observer in attachment.observers { observer.procedureWasAdded(procedure) }
        if independent, ahead.isEmpty {
            perform(grants)
            if open { openGate(procedure, plan: attachment.plan) }
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

    /// Cancels every unfinished procedure whose `add` has returned (one still being added by another thread — an
    /// observer or condition calling this from inside `add` — may be missed).
    public func cancelAll(reason: CancellationReason = .requested("cancel all")) {
        let all = state.withLock { $0.allUnfinished() }
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
        let open = state.withLock { state -> AnyProcedure.Plan? in
            guard procedure.scheduling.isUnfinished else { return nil }
            procedure.scheduling.dependenciesDone = true
            return procedure.scheduling.keysGranted ? procedure.scheduling.plan : nil
        }
        if let plan = open { openGate(procedure, plan: plan) }
    }

    /// Dependencies done and keys held: check dependencies' outcomes, then evaluate conditions or get ready.
    private func openGate(_ procedure: AnyProcedure, plan: AnyProcedure.Plan) {
        if plan.checksDependencies, let reason = NoFailedDependencies.check(procedure.dependencies) {
            procedure.cancel(reason: reason)
            return
        }
        if plan.asynchronousConditions.isEmpty || Self.holdWithoutEvaluation(plan.asynchronousConditions, procedure) {
            guard procedure.becomeReady() else { return }
            let grants = state.withLock { state -> [Grant] in
                state.pushReady(procedure, waiter: .spawn(procedure))
                return state.grantSlots(max: maxConcurrentProcedures)
            }
            perform(grants)
        } else {
            let driver = DriverHandle(driving: procedure.id, for: self)
            guard procedure.claimDriver(driver) else { return }
            let conditions = plan.asynchronousConditions
            let task = Task(executorPreference: taskExecutor) {
                await self.work(procedure, driver: driver, conditions: conditions, holdsSlot: false)
            }
            driver.setTask(task)
        }
    }

    /// Whether every one of `conditions` is known to hold for `procedure` now, without evaluating (no task needed).
    private static func holdWithoutEvaluation(_ conditions: [any ProcedureCondition], _ procedure: AnyProcedure) -> Bool {
        let context = ConditionContext(procedure: procedure, attempt: procedure.attempt + 1)
        return conditions.allSatisfy { $0.holdsWithoutEvaluation(context) }
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
                let driver = DriverHandle(driving: procedure.id, for: self)
                if procedure.claimDriver(driver) {
                    let task = Task(executorPreference: taskExecutor) {
                        await self.work(procedure, driver: driver, conditions: [], holdsSlot: true)
                    }
                    driver.setTask(task)
                } else {
                    pending += state.withLock { $0.releaseSlot(max: maxConcurrentProcedures) }
                }
            }
        }
    }

    /// A driver task: drives `first`, then, while it holds a slot, every ready procedure the queue hands it.
    ///
    /// Every procedure handed over with the slot takes a fast path: its first attempt is run here, the body called
    /// directly (inline, with no asynchronous call, for a synchronous procedure — `Procedure.synchronous`); only when
    /// it throws does the general path (`drive`) take over, told that this attempt threw, for retries or failure.
    private func work(_ first: AnyProcedure, driver: DriverHandle, conditions: [any ProcedureCondition], holdsSlot: Bool) async {
        var next = await drive(first, driver: driver, conditions: conditions, holdsSlot: holdsSlot, evaluate: !holdsSlot)
        while let procedure = next.take() {   // moved out of `next`, not copied
            // The slot was handed to this task together with `procedure`, which has no driver yet.
            guard driver.switchTo(procedure.id) else {
                perform([.spawn(procedure)])   // this task was cancelled: a fresh one takes over, with the slot
                return
            }
            guard let beginning = procedure.claimDriverAndBegin(driver) else {
                releaseSlot()   // cancelled meanwhile; its canceller finishes it
                return
            }
            guard case .go(let number, let firstStart, let observers) = beginning else {
                next = await drive(procedure, driver: driver, conditions: [], holdsSlot: true, evaluate: false, begun: beginning)
                continue
            }
            if firstStart { emit(.started(procedure.info, attempt: number), for: procedure, observers: observers) }
            // Moved into its context, and reached through it from here on: one reference, not two to count.
            let context = ProcedureContext(procedure: consume procedure, driver: driver)
            do {
                let output = context.procedure.runsSynchronously
                    ? try context.procedure.invokeSynchronously(context) : try await context.procedure.invoke(context)
                next = complete(context.procedure, outcome: .succeeded, output: output, holdsSlot: true, takeNext: true)
            } catch {
                // Cancellation, retries and failures: the general path, told that this attempt threw.
                next = await drive(
                    context.procedure, driver: driver, conditions: [], holdsSlot: true, evaluate: false, begun: beginning,
                    failure: error)
            }
        }
    }

    /// Waits for a concurrency slot (cancellable).
    func acquireSlot(_ procedure: AnyProcedure) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let grants = state.withLock { state -> [Grant]? in
                    if procedure.scheduling.withdrawn {
                        procedure.scheduling.withdrawn = false
                        return nil
                    }
                    state.pushReady(procedure, waiter: .resume(continuation))
                    return state.grantSlots(max: maxConcurrentProcedures)
                }
                if let grants { perform(grants) } else { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter = state.withLock { _ -> CheckedContinuation<Void, any Error>? in
                if let waiter = procedure.scheduling.slotWaiter {
                    procedure.scheduling.slotWaiter = nil
                    return waiter.continuation
                }
                procedure.scheduling.withdrawn = true
                return nil
            }
            waiter?.resume(throwing: CancellationError())
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
        // With an event to deliver, the procedure stays counted as unfinished until it is delivered, so that nobody
        // waiting for the queue to drain (`waitUntilAllFinished`) returns before every observer has heard of every
        // finish; without one (the common case) it is uncounted at once, with no second acquisition of the lock.
        let announces = !finishing.observers.isEmpty || hasSubscribers
        var counted = false
        var drained = false
        defer { if drained { letGo() } }   // last: `self` may go with it once the caller lets go too
        // Its places in the lines, moved out under the lock and released after it (a shorter critical section).
        var ticket = ExclusivityTicket.none
        var registered = false
        let (opens, grants, next, waiters) = state.withLock {
            state -> ([(AnyProcedure, AnyProcedure.Plan)], [Grant], AnyProcedure?, [CheckedContinuation<Void, Never>]) in
            guard state.unregister(procedure) else {
                // Not registered yet (cancelled between `attach` and registration): tell the registration.
                procedure.scheduling.finishedEarly = true
                return ([], holdsSlot ? state.releaseSlot(max: max) : [], nil, [])
            }
            registered = true
            counted = announces
            if !announces { drained = state.uncount() }
            var opens: [(AnyProcedure, AnyProcedure.Plan)] = []
            swap(&ticket, &procedure.scheduling.ticket)
            if case .none = ticket {} else {
                // Usually one member is granted: keep it out of an array.
                var first: Unmanaged<AnyProcedure>?
                var more: [Unmanaged<AnyProcedure>] = []
                state.lines.leave(procedure, ticket: ticket) { member in   // alive: see `nextInLine`
                    if first == nil { first = member } else { more.append(member) }
                }
                if let first { state.keysGranted(to: first, opens: &opens) }
                for granted in more { state.keysGranted(to: granted, opens: &opens) }
            }
            // After leaving (the line was linked through it): drops the plan and any waiter.
            procedure.scheduling = Scheduling()
            var grants: [Grant] = []
            var next: AnyProcedure?
            if holdsSlot {
                if takeNext, let key = state.popReady() {
                    // The slot goes to the best waiter: this task drives it if it has no driver yet.
                    if key.resumesDriver, let waiter = key.procedure.scheduling.slotWaiter {
                        key.procedure.scheduling.slotWaiter = nil
                        grants = [.resume(waiter.continuation)]
                    } else {
                        next = key.procedure
                    }
                } else {
                    grants = state.releaseSlot(max: max)
                }
            } else if state.running < max {
                grants = state.grantSlots(max: max)
            }
            return (opens, grants, next, counted ? [] : state.takeCapacityWaiters())
        }
        if registered { Unmanaged.passUnretained(procedure).release() }   // the reference `register` took
        emit(.finished(procedure.info, outcome: outcome), for: procedure, observers: finishing.observers)
        if counted {
            let late = state.withLock { state in
                drained = state.uncount()
                return state.takeCapacityWaiters()
            }
            for waiter in late { waiter.resume() }
        }
        // After the uncounting: whoever awaited this procedure finds it no longer among the unfinished.
        for waiter in finishing.waiters { waiter.resume(returning: outcome) }
        perform(grants)
        for (open, plan) in opens { openGate(open, plan: plan) }
        for dependent in finishing.dependents where dependent.dependencyFinished() {
            dependent.attachedQueue?.dependenciesSatisfied(dependent)
        }
        for waiter in waiters { waiter.resume() }
        return next
    }

    /// Takes a reference to this queue on behalf of its unfinished procedures (they hold it unretained: see
    /// `AnyProcedure.CoreState.queue`); called when the first one is counted.
    private func keepAlive() { _ = Unmanaged.passUnretained(self).retain() }

    /// Gives back the reference of `keepAlive`, when the last unfinished procedure is uncounted; the caller must
    /// hold its own reference until it is done with the queue.
    private func letGo() { Unmanaged.passUnretained(self).release() }

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

    /// A simple procedure (see `addSimple`) on its way into the queue: what registering it needs.
    struct Admission {
        // Unmanaged (no reference counting on the way in): an admission lives only within the `add` call that
        // made it, whose caller holds the procedure (alone, or in the array being added) throughout.
        let procedure: Unmanaged<AnyProcedure>
        let keys: AnyProcedure.ExclusionKeys
        let plan: AnyProcedure.Plan

        init(_ procedure: AnyProcedure, keys: AnyProcedure.ExclusionKeys, plan: AnyProcedure.Plan) {
            self.procedure = Unmanaged.passUnretained(procedure)
            self.keys = keys
            self.plan = plan
        }
    }

    enum Registration {
        case skipped
        case registered(ahead: [AnyProcedure], grants: [Grant], open: Bool)
    }

    /// The queue's bookkeeping for one procedure, kept in the procedure itself and guarded by the queue's lock.
    struct Scheduling {
        // Ordered for locality and size (48 bytes, which the procedure's layout pads to anyway): what a procedure
        // reaching the head of its line needs (`QueueState.keysGranted`) first, in the object's first cache line
        // together with its reference count and priority; then the 4-byte index, then the references.
        /// What its conditions need, computed when it was added.
        var plan = AnyProcedure.Plan(asynchronousConditions: [], checksDependencies: false)
        /// Added and not finished.
        var isUnfinished = false
        var keysGranted = false
        var dependenciesDone = false
        /// Its driver was cancelled before it could wait for a slot.
        var withdrawn = false
        /// Finished (cancelled) after `attach` but before it was registered: the registration must skip it.
        var finishedEarly = false
        /// Its place in `QueueState.unfinished` while it is unfinished, if it has no exclusivity key.
        var unfinishedIndex: Int32 = 0
        /// Its places in the exclusivity lines.
        var ticket = ExclusivityTicket.none
        /// The next place in its line, if it has one key (see `AnyProcedure.nextInLine`).
        var nextInLine: ExclusivityLink?
        /// Its driver, suspended in `acquireSlot` until a slot is free.
        var slotWaiter: SlotWaiter?
    }

    /// A driver suspended in `acquireSlot` until a slot is free, in a box: `CheckedContinuation` is a resilient type
    /// (its size is not known outside its library), and stored inline it would make the size of `Scheduling`, and
    /// with it the layout of every procedure object, known only at run time — every field of a procedure would then
    /// be reached through offsets read from its type's metadata, and initialised through value witnesses.
    final class SlotWaiter {
        let continuation: CheckedContinuation<Void, any Error>

        init(_ continuation: CheckedContinuation<Void, any Error>) { self.continuation = continuation }
    }

    /// A place in the ready lines (higher priority first, then first-come).
    struct ReadyKey {
        let procedure: AnyProcedure
        /// Whether a suspended driver waits for the slot (`scheduling.slotWaiter`) rather than a new task.
        let resumesDriver: Bool
    }

    struct Subscribers {
        var next = 0
        var continuations: [Int: AsyncStream<ProcedureEvent>.Continuation] = [:]
    }

    /// Everything the queue's lock guards (with the `scheduling` field of every unfinished procedure).
    struct QueueState {
        /// The unfinished procedures that have no exclusivity key (those with keys are found in `lines`, where they
        /// stay from registration to finish), each in the slot its `unfinishedIndex` names; `nil` slots are free and
        /// listed in `freeSlots`. Leaving empties the slot rather than moving another procedure into it, so that
        /// finishing touches no other procedure (with many thousands queued, each would be a cache miss here).
        // Unmanaged: each element owns one retain, taken by `register` and given back by `unregister`, so the
        // table keeps every unfinished procedure alive exactly as a strong array would, without reference
        // counting on every access. (`register` takes the same retain for a procedure with keys, whose lines
        // hold it unretained.)
        var unfinished: [Unmanaged<AnyProcedure>?] = []
        /// The indices of the free slots of `unfinished`, reused first.
        var freeSlots: [Int] = []
        /// The number of unfinished procedures, with keys or without.
        var unfinishedCount = 0
        var lines = ExclusivityLines<AnyProcedure>()
        var ready = ReadyLines<ReadyKey>()
        var running = 0
        var peakUnfinished = 0
        var capacityWaiters: [(Int, CheckedContinuation<Void, Never>)] = []

        /// Counts `procedure` as unfinished; call after it joined its lines (`scheduling.ticket` set). Returns whether
        /// it is the only one (the queue must then keep itself alive: `keepAlive`).
        @discardableResult
        mutating func register(_ procedure: AnyProcedure) -> Bool {
            procedure.scheduling.isUnfinished = true
            unfinishedCount += 1
            peakUnfinished = Swift.max(peakUnfinished, unfinishedCount)
            let first = unfinishedCount == 1
            let retained = Unmanaged.passRetained(procedure)   // given back by `unregister`
            // In its lines until it finishes (the lines hold it unretained: see `AnyProcedure.nextInLine`).
            guard case .none = procedure.scheduling.ticket else { return first }
            let index: Int
            if let free = freeSlots.popLast() {
                index = free
                unfinished[index] = retained
            } else {
                index = unfinished.count
                unfinished.append(retained)
            }
            procedure.scheduling.unfinishedIndex = Int32(index)
            return first
        }

        /// Uncounts a procedure that `unregister` removed; returns whether none is left (the queue may then let go of
        /// itself: `letGo`).
        mutating func uncount() -> Bool {
            unfinishedCount -= 1
            return unfinishedCount == 0
        }

        /// Removes a finished procedure from the unfinished ones; `false` if it was not there. Call before it leaves
        /// its lines. It still counts in `unfinishedCount` until the caller calls `uncount`. On `true` the caller owns
        /// the reference `register` took, and gives it back after the lock (`Unmanaged.release`): it holds one of its
        /// own meanwhile, so releasing never deinitialises anything here, and the critical section is shorter.
        mutating func unregister(_ procedure: AnyProcedure) -> Bool {
            guard procedure.scheduling.isUnfinished else { return false }
            procedure.scheduling.isUnfinished = false
            guard case .none = procedure.scheduling.ticket else { return true }
            let index = Int(procedure.scheduling.unfinishedIndex)
            unfinished[index] = nil
            if freeSlots.count + 1 == unfinished.count {
                // All slots are free: start over, so that the table does not keep a past peak's free list.
                unfinished.removeAll(keepingCapacity: true)
                freeSlots.removeAll(keepingCapacity: true)
            } else {
                freeSlots.append(index)
            }
            return true
        }

        /// Removes and returns the waiters of `waitUntilUnfinished` whose limit is reached.
        mutating func takeCapacityWaiters() -> [CheckedContinuation<Void, Never>] {
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

        /// Every unfinished procedure: those without keys, then the members of every line, each once.
        func allUnfinished() -> [AnyProcedure] {
            // `takeUnretainedValue` retains each into the array while this lock keeps them registered, hence alive.
            var all = unfinished.compactMap { $0?.takeUnretainedValue() }
            var seen = Set<ObjectIdentifier>()
            lines.forEachMember { member in
                if seen.insert(ObjectIdentifier(member)).inserted { all.append(member) }
            }
            return all
        }

        /// `procedure` now holds all its keys: ready at once, or to be opened (conditions) outside the lock.
        mutating func keysGranted(to member: Unmanaged<AnyProcedure>, opens: inout [(AnyProcedure, AnyProcedure.Plan)]) {
            // Unretained until it is queued: a line member is alive (see `AnyProcedure.nextInLine`).
            member._withUnsafeGuaranteedRef { procedure in
                procedure.scheduling.keysGranted = true
                guard procedure.scheduling.dependenciesDone else { return }
                if procedure.scheduling.plan.asynchronousConditions.isEmpty, !procedure.scheduling.plan.checksDependencies {
                    // Ready at once: queue it under this same lock, before choosing what runs next.
                    if procedure.becomeReady() { pushReady(procedure) }
                } else {
                    opens.append((procedure, procedure.scheduling.plan))
                }
            }
        }

        /// Queues a ready procedure that has no driver yet (a new task, or the task finishing another, drives it).
        mutating func pushReady(_ procedure: consuming AnyProcedure) {
            let priority = procedure.priority.rawValue
            ready.insert(ReadyKey(procedure: procedure, resumesDriver: false), priority: priority)
        }

        mutating func pushReady(_ procedure: AnyProcedure, waiter: Grant) {
            switch waiter {
            case .spawn:
                ready.insert(ReadyKey(procedure: procedure, resumesDriver: false), priority: procedure.priority.rawValue)
            case .resume(let continuation):
                procedure.scheduling.slotWaiter = SlotWaiter(continuation)
                ready.insert(ReadyKey(procedure: procedure, resumesDriver: true), priority: procedure.priority.rawValue)
            }
        }

        /// The waiter behind a heap entry, if it is still waiting (a cancelled driver withdraws its entry).
        private mutating func waiter(for key: ReadyKey) -> Grant? {
            guard key.resumesDriver else { return .spawn(key.procedure) }
            guard let waiter = key.procedure.scheduling.slotWaiter else { return nil }
            key.procedure.scheduling.slotWaiter = nil
            return .resume(waiter.continuation)
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

        /// Takes the best entry that still waits, keeping the slot it will use (the caller's): a procedure with no
        /// driver, or one whose driver waits in `scheduling.slotWaiter`.
        mutating func popReady() -> ReadyKey? {
            while let key = ready.popMax() {
                if !key.resumesDriver || key.procedure.scheduling.slotWaiter != nil { return key }
            }
            return nil
        }

        mutating func releaseSlot(max: Int) -> [Grant] {
            running -= 1
            return grantSlots(max: max)
        }
    }
}

extension AnyProcedure: ExclusivityLineMember {
    /// The link to the next place in its exclusivity line (one key), kept in `scheduling` under the queue's lock.
    ///
    /// The lines hold their members unretained: a procedure is in its lines only while it is registered as
    /// unfinished, and `QueueState.register` holds a reference for it from its joining (in the same acquisition of
    /// the queue's lock) until `unregister`, which precedes its leaving (in the same acquisition too); the lines
    /// are only read and changed under that lock.
    var nextInLine: ExclusivityLink? {
        get { scheduling.nextInLine }
        set { scheduling.nextInLine = newValue }
    }
}
