/// Groups: a `GroupProcedure` that becomes ready adds its children to the queue, holds its keys while they run, and
/// finishes when the last of them has, with the outcome derived from theirs.
extension ProcedureQueue {
    /// Starts a ready group: `ready → executing`, then its children are added. A group takes no concurrency slot.
    func startGroup(_ group: AnyProcedure) {
        /// What the critical section found.
        enum Start {
            case begun(children: [AnyProcedure], observers: [any ProcedureObserver], attempt: Int)
            case cancelled(CancellationReason)
            case finished
        }
        let start = group.state.withLock { state -> Start in
            if state.lifecycle == .finished { return .finished }
            if let reason = state.cancelReason { return .cancelled(reason) }
            precondition(state.lifecycle == .ready, "engine: group ‘\(group.name)’ started while \(state.lifecycle)")
            state.lifecycle = .executing
            state.started = true
            state.attemptsThisRun += 1
            state.driver = nil   // its conditions' task, if it had one, is done; cancelling now reaches the children
            state.relations?.unfinishedChildren = state.children.count
            return .begun(
                children: state.children, observers: state.observers,
                attempt: state.previousAttempts + state.attemptsThisRun)
        }
        switch start {
        case .finished:
            return
        case .cancelled(let reason):
            // Cancelled while its conditions' task handed it over: that task has ended, so it is finished here.
            complete(group, outcome: .cancelled(reason), output: nil, holdsSlot: false)
        case .begun(let children, let observers, let attempt):
            let keys = Set(group.exclusivityKeys)
            for child in children {
                let shared = child.exclusivityKeys.filter(keys.contains)
                precondition(
                    shared.isEmpty,
                    "‘\(child.name)’ holds \(shared[0]), which its group ‘\(group.name)’ holds: it would wait forever.")
                child.state.withLock { $0.relate().parent = group }
            }
            emit(.started(group.info, attempt: attempt), for: group, observers: observers)
            if children.isEmpty {
                complete(group, outcome: .succeeded, output: group.outputOfChildren(), holdsSlot: false)
            } else {
                add(children)
            }
        }
    }

    /// Counts a finished child of `group`; the last one finishes the group.
    func childFinished(of group: AnyProcedure) {
        let children = group.state.withLock { state -> [AnyProcedure]? in
            guard let relations = state.relations else { return nil }
            relations.unfinishedChildren -= 1
            return relations.unfinishedChildren == 0 ? relations.children : nil
        }
        guard let children else { return }
        let outcome = ProcedureOutcome.ofGroup(children.map { $0.outcome ?? .succeeded })
        let output = outcome.isSuccess ? group.outputOfChildren() : nil
        (group.attachedQueue ?? self).complete(group, outcome: outcome, output: output, holdsSlot: false)
    }

    /// Cancels the children of a group that finished without starting, with the group's reason, and adds them, so
    /// that each finishes (as cancelled, without running) and its observers and waiters hear of it.
    func cancelUnstarted(_ children: [AnyProcedure], of group: AnyProcedure, outcome: ProcedureOutcome) {
        let reason: CancellationReason = switch outcome {
        case .cancelled(let reason): reason
        case .failed(let error): .dependencyFailed(dependency: group.name, error: error)
        case .deferred(let deferral): .dependencyFailed(dependency: group.name, error: deferral.error)
        case .succeeded: .requested("engine: group ‘\(group.name)’ finished without starting")
        }
        for child in children { child.cancel(reason: reason) }
        add(children)
    }
}
