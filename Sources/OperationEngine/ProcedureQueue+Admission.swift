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
        var list = procedures
        var index = 0
        var ordered = false
        // The preparation of the procedure that made the list be ordered (its contributed dependencies are added
        // already, so it is not prepared again).
        var carried: Preparation?
        var batch: [Admission] = []
        batch.reserveCapacity(min(list.count, Self.batchSize))
        while index < list.count {
            let procedure = list[index]
            let preparation: Preparation
            if let early = carried, early.procedure === procedure {
                preparation = early
                carried = nil
            } else {
                preparation = procedure.prepare(for: self)
            }
            if !ordered, preparation.waitsForUnadded {
                // A dependency may come later in the list: the rest is ordered, dependencies first.
                list = Self.dependencyOrder(Array(list[index...]))
                index = 0
                ordered = true
                carried = preparation
                continue
            }
            batch.append(procedure.attach(preparation, to: self))
            if batch.count == Self.batchSize {
                register(batch)
                batch.removeAll(keepingCapacity: true)
            }
            index += 1
        }
        register(batch)
    }

    /// How many procedures `add(_:)` registers per acquisition of the lock.
    static var batchSize: Int { 1_024 }

    /// Registers attached procedures: each joins its lines and is counted; one whose keys are free and that has
    /// nothing to wait for is made ready at once. The rest — telling observers, registering with dependencies, the
    /// self-wait check — follows the lock.
    private func register(_ batch: [Admission]) {
        guard !batch.isEmpty else { return }
        let max = maxConcurrentProcedures
        var opens: [(AnyProcedure, Plan)] = []
        var settles: [(Admission, ahead: [AnyProcedure])] = []
        let grants = state.withLock { state -> [Grant] in
            for index in batch.indices {   // by index: each admission is read in place, not copied out
                let procedure = batch[index].procedure
                // Cancelled and finished between `attach` and here: its finish found nothing to remove.
                if !state.finishedEarly.isEmpty, state.finishedEarly.remove(procedure.id) != nil { continue }
                // A procedure with dependents notes who is ahead of it in its lines: a dependent there would wait for
                // it forever (checked after the lock, with its registration with its dependencies).
                if !batch[index].isIndependent {
                    var ahead: [AnyProcedure] = []
                    if batch[index].hasDependents {
                        for key in batch[index].keys { ahead += state.lines.members(of: key) }
                    }
                    settles.append((batch[index], ahead))
                }
                state.count()
                if batch[index].keys.isEmpty {
                    state.keyless[procedure.id] = procedure
                } else if !state.lines.join(procedure, keys: batch[index].keys) {
                    continue   // it waits for its keys: whoever holds them hands them on
                }
                keysGranted(to: procedure, in: &state, opens: &opens)
            }
            return state.grantSlots(max: max)
        }
        for index in batch.indices where !batch[index].observers.isEmpty {
            for observer in batch[index].observers { observer.procedureWasAdded(batch[index].procedure) }
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
