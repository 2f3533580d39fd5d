/// Admission: adding procedures, with the dependencies their conditions contribute, in dependency order; joining
/// their exclusivity lines; registering them with their dependencies.
extension ProcedureQueue {
    /// Adds a procedure (and first any dependency its conditions contribute).
    ///
    /// Add a procedure after the procedures it depends on when they share an exclusivity key (or add them together
    /// with `add(_:)` on an array, which orders them): otherwise it fails at once with `EngineError.waitsOnItself`
    /// instead of waiting forever.
    public func add(_ procedure: AnyProcedure) {
        add([procedure])
    }

    /// Adds a typed procedure.
    public func add<Output>(_ procedure: Procedure<Output>) { add(procedure.erased) }

    /// Adds several procedures, dependencies before their dependents; they are registered in batches, each under one
    /// acquisition of the queue's lock.
    public func add(_ procedures: [AnyProcedure]) {
        var hasDependencies = false
        for procedure in procedures where addContributedDependencies(of: procedure) { hasDependencies = true }
        let ordered = hasDependencies ? Self.dependencyOrder(procedures) : procedures
        var batch: [Admission] = []
        batch.reserveCapacity(min(ordered.count, Self.batchSize))
        for procedure in ordered {
            batch.append(procedure.attach(to: self))
            if batch.count == Self.batchSize {
                register(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        register(batch)
    }

    /// How many procedures `add(_:)` registers per acquisition of the lock.
    static var batchSize: Int { 1_024 }

    /// Adds the dependencies that `procedure`'s conditions contribute (adding them to the queue first); returns
    /// whether `procedure` has any dependency now.
    private func addContributedDependencies(of procedure: AnyProcedure) -> Bool {
        let (conditions, hasDependencies) = procedure.state.withLock { ($0.conditions, !$0.dependencies.isEmpty) }
        var contributed = false
        for condition in conditions {
            guard let dependency = condition.dependency(for: procedure) else { continue }
            procedure.addDependency(dependency)
            if dependency.lifecycle == .initialized { add(dependency) }
            contributed = true
        }
        return hasDependencies || contributed
    }

    /// Registers attached procedures: each joins its lines and is counted; an independent one whose keys are free is
    /// made ready at once. The rest — telling observers, registering with dependencies — follows the lock.
    private func register(_ batch: [Admission]) {
        guard !batch.isEmpty else { return }
        let max = maxConcurrentProcedures
        var opens: [(AnyProcedure, Plan)] = []
        var settles: [(Admission, ahead: [AnyProcedure])] = []
        let grants = state.withLock { state -> [Grant] in
            for admission in batch {
                let procedure = admission.procedure
                // Cancelled and finished between `attach` and here: its finish found nothing to remove.
                if !state.finishedEarly.isEmpty, state.finishedEarly.remove(procedure.id) != nil { continue }
                // A procedure with dependents notes who is ahead of it in its lines: a dependent there would wait for
                // it forever (checked after the lock).
                var ahead: [AnyProcedure] = []
                if admission.hasDependents {
                    for key in admission.keys { ahead += state.lines.members(of: key) }
                }
                let granted: Bool
                if admission.keys.isEmpty {
                    state.keyless[procedure.id] = procedure
                    granted = true
                } else {
                    granted = state.lines.join(procedure, keys: admission.keys)
                }
                state.count()
                let independent = admission.isIndependent && ahead.isEmpty
                if !independent { settles.append((admission, ahead)) }
                switch procedure.admit(
                    keys: admission.keys, plan: admission.plan, keysGranted: granted, dependenciesDone: independent)
                {
                case .waiting: break
                case .ready: state.pushReady(procedure)
                case .open(let plan): opens.append((procedure, plan))
                }
            }
            return state.grantSlots(max: max)
        }
        for admission in batch {
            for observer in admission.observers { observer.procedureWasAdded(admission.procedure) }
        }
        perform(grants)
        for (procedure, plan) in opens { open(procedure, plan: plan) }
        for (admission, ahead) in settles { settle(admission, ahead: ahead) }
    }

    /// Registers a procedure with its dependencies, after a check that none ahead of it in its lines depends on it.
    private func settle(_ admission: Admission, ahead: [AnyProcedure]) {
        let procedure = admission.procedure
        for member in ahead where Self.dependsTransitively(member, on: procedure) {
            let key = admission.keys.first { member.exclusivityKeys.contains($0) } ?? admission.keys.first ?? ""
            let error = EngineError.waitsOnItself(procedure: procedure.name, key: key, holder: member.name)
            complete(procedure, outcome: .failed(error), output: nil, holdsSlot: false)
            return
        }
        var alreadyFinished = 0
        for dependency in admission.dependencies where !dependency.registerDependent(procedure) {
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

    /// Whether `start` depends on `target`, directly or through its dependencies.
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
