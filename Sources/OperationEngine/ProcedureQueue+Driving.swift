/// Driving: the task that carries a procedure from condition evaluation to its finish, through retries and waits
/// for the network, then goes on to the next ready procedure while it holds a slot.
extension ProcedureQueue {
    /// A driver task: drives `first`, then, while it holds a slot, every ready procedure the queue hands it.
    ///
    /// The first attempt of a procedure handed over with the slot is run here, the body called directly; only when
    /// it throws (or the procedure was cancelled meanwhile) does `drive` take over, told what happened.
    func work(_ first: AnyProcedure, driver: DriverHandle, holdsSlot: Bool) async {
        var next = await drive(first, driver: driver, holdsSlot: holdsSlot, evaluate: !holdsSlot)
        while let procedure = next {
            // The slot was handed to this task together with `procedure`, which has no driver yet.
            guard driver.switchTo(procedure.id) else {
                perform([.spawn(procedure)])   // this task was cancelled: a fresh one takes over, with the slot
                return
            }
            guard let beginning = procedure.claimDriverAndBegin(driver) else {
                releaseSlot()   // cancelled meanwhile; its canceller finishes it
                return
            }
            guard case .go(let attempt, let firstStart, let observers) = beginning else {
                next = await drive(procedure, driver: driver, holdsSlot: true, evaluate: false, begun: beginning)
                continue
            }
            if firstStart { emit(.started(procedure.info, attempt: attempt), for: procedure, observers: observers) }
            do {
                let output = try await procedure.invoke(ProcedureContext(procedure: procedure, queue: self))
                next = complete(procedure, outcome: .succeeded, output: output, holdsSlot: true, takeNext: true)
            } catch {
                next = await drive(
                    procedure, driver: driver, holdsSlot: true, evaluate: false, begun: beginning, failure: error)
            }
        }
    }

    /// Runs `procedure` until it finishes; the only code that finishes a procedure that has a driver. Returns the
    /// next procedure to drive when the slot was handed back with one. It runs on its caller's executor (the driver
    /// task's), like the bodies it calls, so that calling it needs no executor switch.
    private nonisolated(nonsending) func drive(
        _ procedure: AnyProcedure, driver: DriverHandle, holdsSlot: Bool, evaluate: Bool, begun: Beginning? = nil,
        failure: (any Error)? = nil
    ) async -> AnyProcedure? {
        var holdsSlot = holdsSlot
        var evaluate = evaluate
        var begun = begun   // the first attempt, already begun by the caller
        var failure = failure   // that first attempt already ran (in `work`) and threw this
        var networkWaited = Duration.zero

        func finish(_ outcome: ProcedureOutcome, output: (any Sendable)? = nil) -> AnyProcedure? {
            complete(procedure, outcome: outcome, output: output, holdsSlot: holdsSlot, takeNext: holdsSlot)
        }
        func finishCancelled() -> AnyProcedure? {
            // The task may be cancelled: hand the slot on rather than keep driving.
            let reason = procedure.cancellationReason ?? .requested("task cancelled")
            return complete(procedure, outcome: .cancelled(reason), output: nil, holdsSlot: holdsSlot)
        }
        /// Waits without a slot; `false` when cancelled (the procedure is then finished).
        func wait(_ delay: Duration, _ event: ProcedureEvent) async -> Bool {
            guard procedure.transition(to: .waitingToRetry) else {
                _ = finishCancelled()
                return false
            }
            if holdsSlot {
                releaseSlot()
                holdsSlot = false
            }
            emit(event, for: procedure)
            do {
                try await clock.sleep(for: delay)
            } catch {
                _ = finishCancelled()
                return false
            }
            if procedure.isCancelled {
                _ = finishCancelled()
                return false
            }
            return true
        }

        while true {
            if evaluate {
                guard procedure.transition(to: .evaluatingConditions) else { return finishCancelled() }
                do {
                    let context = ConditionContext(procedure: procedure, attempt: procedure.attempt + 1)
                    for condition in procedure.asynchronousConditions where !condition.holdsWithoutEvaluation(context) {
                        try Task.checkCancellation()
                        try await condition.evaluate(context)
                    }
                    try Task.checkCancellation()
                } catch {
                    if procedure.isCancelled { return finishCancelled() }
                    let decision = procedure.retryPolicy.decide(
                        error: error, attempt: procedure.attempt, networkWaited: networkWaited,
                        fraction: random.nextFraction())
                    switch decision {
                    case .waitForNetwork(let delay):
                        guard await wait(delay, .waiting(procedure.info, delay: delay, error: error)) else { return nil }
                        networkWaited += delay
                        continue
                    case .deferUntilReachable:
                        return finish(.deferred(Deferral(error: error, retryAfter: nil, attempts: procedure.attempt)))
                    case .retry, .deferRetry, .fail:
                        // A condition that does not hold is a failure, not an attempt: it is not retried.
                        return finish(.failed(error))
                    }
                }
                guard procedure.transition(to: .ready) else { return finishCancelled() }
                if procedure.isGroup {
                    startGroup(procedure)   // it takes no slot: its children take theirs
                    return nil
                }
            }

            if !holdsSlot {
                do {
                    try await acquireSlot(procedure)
                    holdsSlot = true
                } catch {
                    return finishCancelled()
                }
            }

            let attempt: Int
            let beginning = begun ?? procedure.beginExecuting()
            begun = nil
            switch beginning {
            case .alreadyFinished:
                releaseSlot()
                return nil
            case .cancelled(let reason):
                return finish(.cancelled(reason))
            case .go(let number, let firstStart, let observers):
                attempt = number
                if firstStart, failure == nil {
                    emit(.started(procedure.info, attempt: number), for: procedure, observers: observers)
                }
            }

            do {
                if let early = failure.take() { throw early }
                let output = try await procedure.invoke(ProcedureContext(procedure: procedure, queue: self))
                return finish(.succeeded, output: output)
            } catch {
                if let reason = procedure.cancellationReason { return finish(.cancelled(reason)) }
                let decision = procedure.retryPolicy.decide(
                    error: error, attempt: attempt, networkWaited: networkWaited, fraction: random.nextFraction())
                switch decision {
                case .retry(let delay):
                    let event = ProcedureEvent.retrying(procedure.info, attempt: attempt + 1, delay: delay, error: error)
                    guard await wait(delay, event) else { return nil }
                case .waitForNetwork(let delay):
                    procedure.uncountAttempt()
                    guard await wait(delay, .waiting(procedure.info, delay: delay, error: error)) else { return nil }
                    networkWaited += delay
                case .deferRetry(let delay):
                    return finish(.deferred(Deferral(error: error, retryAfter: delay, attempts: attempt)))
                case .deferUntilReachable:
                    procedure.uncountAttempt()
                    return finish(.deferred(Deferral(error: error, retryAfter: nil, attempts: attempt - 1)))
                case .fail:
                    return finish(.failed(error))
                }
                evaluate = true
            }
        }
    }
}
