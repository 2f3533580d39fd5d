/// Completion: a procedure finishes exactly once; its keys and slot pass on, and whoever waited on it is told.
extension ProcedureQueue {
    /// Finishes a procedure exactly once, releases its keys, and wakes whoever waited on it.
    ///
    /// With `holdsSlot` the slot is released, or, with `takeNext`, handed back together with the next ready
    /// procedure that needs a driver (the caller drives it).
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
        // waiting for the queue to drain returns before every observer has heard of every finish.
        let observers = finishing.relations?.observers ?? []
        let announces = !observers.isEmpty || hasSubscribers
        var opens: [(AnyProcedure, Plan)] = []
        var grants: [Grant] = []
        var next: AnyProcedure?
        var drained: [CheckedContinuation<Void, Never>] = []
        let counted = state.withLock { state -> Bool in
            if !state.withdrawn.isEmpty { state.withdrawn.remove(procedure.id) }
            // Usually one member is granted: kept out of an array.
            var first: AnyProcedure?
            var more: [AnyProcedure] = []
            let registered: Bool
            if finishing.keys.isEmpty {
                registered = state.keyless.removeValue(forKey: procedure.id) != nil
            } else {
                registered = state.lines.leave(procedure, keys: finishing.keys) { granted in
                    if first == nil { first = granted } else { more.append(granted) }
                }
            }
            // Not registered (cancelled between `attach` and registration): the registration must skip it.
            guard registered else {
                state.finishedEarly.insert(procedure.id)
                if holdsSlot { grants = state.releaseSlot(max: max) }
                return false
            }
            if let first { keysGranted(to: first, in: &state, opens: &opens) }
            for granted in more { keysGranted(to: granted, in: &state, opens: &opens) }
            if holdsSlot {
                // Only within the bound: after `setMaxConcurrentProcedures` lowered it, the slot is given back.
                if takeNext, state.running <= max, let grant = state.popReady() {
                    // The slot goes to the best waiter: this task drives it if it needs a driver.
                    switch grant {
                    case .spawn(let procedure): next = procedure
                    case .resume: grants = [grant]
                    }
                } else {
                    grants = state.releaseSlot(max: max)
                }
            } else if state.running < max {
                grants = state.grantSlots(max: max)
            }
            if !announces { drained = state.uncount() }
            return announces
        }
        emit(.finished(procedure.info, outcome: outcome), for: procedure, observers: observers)
        if counted { drained = state.withLock { $0.uncount() } }
        // After the uncounting: whoever awaited this procedure finds it no longer among the unfinished.
        if let relations = finishing.relations {
            for waiter in relations.finishWaiters { waiter.resume(returning: outcome) }
        }
        perform(grants)
        for (procedure, plan) in opens { open(procedure, plan: plan) }
        if let relations = finishing.relations {
            for dependent in relations.dependents where dependent.dependencyFinished() {
                dependent.attachedQueue?.dependenciesSatisfied(dependent)
            }
            if let parent = relations.parent { childFinished(of: parent) }
            let unstarted = finishing.unstartedChildren
            if !unstarted.isEmpty { cancelUnstarted(unstarted, of: procedure, outcome: outcome) }
        }
        for waiter in drained { waiter.resume() }
        return next
    }
}
