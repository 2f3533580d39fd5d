/// Readiness: a procedure whose dependencies are done and whose keys are held has its dependencies' outcomes checked
/// and its conditions evaluated, then waits for one of the concurrency slots.
extension ProcedureQueue {
    /// Called when the last dependency of `procedure` has finished.
    func dependenciesSatisfied(_ procedure: AnyProcedure) {
        switch procedure.finishDependencies() {
        case .waiting:
            break
        case .ready:
            perform(state.withLock { state in
                state.pushReady(procedure)
                return state.grantSlots(max: maxConcurrentProcedures)
            })
        case .open(let plan):
            open(procedure, plan: plan)
        }
    }

    /// Called under the lock when `procedure` has come to head all its lines: queued at once when nothing else
    /// stands in the way, otherwise added to `opens` for `open` after the lock.
    func keysGranted(to procedure: AnyProcedure, in state: inout QueueState, opens: inout [(AnyProcedure, Plan)]) {
        switch procedure.grantKeys() {
        case .waiting: break
        case .ready: state.pushReady(procedure)
        case .open(let plan): opens.append((procedure, plan))
        }
    }

    /// Dependencies done and keys held: checks the dependencies' outcomes, takes over an attempt count, then starts a
    /// group, evaluates the conditions in a task, or makes the procedure ready.
    func open(_ procedure: AnyProcedure, plan: Plan) {
        if plan.checksDependencies, let reason = NoFailedDependencies.check(procedure.dependencies) {
            procedure.cancel(reason: reason)
            return
        }
        if plan.continuesAttempts { procedure.continueAttemptCount() }
        let context = ConditionContext(procedure: procedure, attempt: procedure.attempt + 1)
        if plan.asynchronousConditions.allSatisfy({ $0.holdsWithoutEvaluation(context) }) {
            guard procedure.becomeReady() else { return }
            if plan.isGroup {
                startGroup(procedure)
                return
            }
            let grants = state.withLock { state -> [Grant] in
                state.pushReady(procedure)
                return state.grantSlots(max: maxConcurrentProcedures)
            }
            perform(grants)
        } else {
            let driver = DriverHandle(driving: procedure.id)
            guard procedure.claimDriver(driver) else { return }
            let task = Task(executorPreference: taskExecutor) {
                await self.work(procedure, driver: driver, holdsSlot: false)
            }
            driver.setTask(task)
        }
    }

    /// Hands slots over: resumes suspended drivers, or starts a driver task for each ready procedure.
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
                    let task = Task(executorPreference: taskExecutor) {
                        await self.work(procedure, driver: driver, holdsSlot: true)
                    }
                    driver.setTask(task)
                } else {
                    // Cancelled and finished by its canceller meanwhile: the slot goes to the next.
                    pending += state.withLock { $0.releaseSlot(max: maxConcurrentProcedures) }
                }
            }
        }
    }

    /// Waits for a concurrency slot, in the ready lines by priority (cancellable).
    func acquireSlot(_ procedure: AnyProcedure) async throws {
        let id = procedure.id
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let grants = state.withLock { state -> [Grant]? in
                    if state.withdrawn.remove(id) != nil { return nil }
                    state.slotWaiters[id] = continuation
                    state.ready.insert(.resume(id), priority: procedure.priority.rawValue)
                    return state.grantSlots(max: maxConcurrentProcedures)
                }
                if let grants { perform(grants) } else { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                if let waiter = state.slotWaiters.removeValue(forKey: id) { return waiter }
                state.withdrawn.insert(id)
                return nil
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Gives a slot back.
    func releaseSlot() {
        perform(state.withLock { $0.releaseSlot(max: maxConcurrentProcedures) })
    }
}
