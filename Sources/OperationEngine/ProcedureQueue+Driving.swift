/// The driver: the one task that carries a procedure from condition evaluation to its finish, through retries.
extension ProcedureQueue {
    /// Runs `procedure` until it finishes; the only code that finishes a procedure that has a driver.
    /// Returns the next procedure to drive when the slot was handed back with one.
    func drive(
        _ procedure: AnyProcedure, driver: DriverHandle, conditions: [any ProcedureCondition], holdsSlot: Bool, evaluate: Bool,
        begun: AnyProcedure.Beginning? = nil, failure: (any Error)? = nil
    ) async -> AnyProcedure? {
        var begun = begun   // already moved to `executing` by the caller (first attempt only)
        var failure = failure   // that first attempt already ran (synchronously, in `work`) and threw this
        var holdsSlot = holdsSlot
        var evaluate = evaluate
        var networkWaited = Duration.zero

        func finish(_ outcome: ProcedureOutcome, output: (any Sendable)? = nil) -> AnyProcedure? {
            complete(procedure, outcome: outcome, output: output, holdsSlot: holdsSlot, takeNext: holdsSlot)
        }
        func finishCancelled() -> AnyProcedure? {
            // The task may be cancelled: hand the slot on rather than keep driving.
            complete(
                procedure, outcome: .cancelled(procedure.cancellationReason ?? .requested("task cancelled")),
                output: nil, holdsSlot: holdsSlot)
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
                    for condition in conditions {
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
                if firstStart, failure == nil { emit(.started(procedure.info, attempt: number), for: procedure, observers: observers) }
            }

            do {
                if let early = failure {
                    failure = nil
                    throw early
                }
                let context = ProcedureContext(procedure: procedure, driver: driver)
                let output = procedure.runsSynchronously
                    ? try procedure.invokeSynchronously(context) : try await procedure.invoke(context)
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
